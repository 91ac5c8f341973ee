import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** The body of every error answer. */
export class ErrorResponseDto {
  @ApiProperty({ example: 400 })
  statusCode!: number;

  @ApiProperty({ example: 'Bad Request', description: 'The HTTP reason phrase' })
  error!: string;

  @ApiProperty({ example: 'name must have 1 to 200 characters', description: 'What was wrong, in words' })
  message!: string;

  @ApiPropertyOptional({ example: 'VALIDATION_FAILED', description: 'Stable machine-readable code' })
  code?: string;

  @ApiPropertyOptional({
    description: 'Structured detail: for validation errors the failing fields, for an unknown template the known ids',
    example: [{ field: 'name', problems: ['name must be shorter than or equal to 200 characters'] }],
  })
  details?: unknown;
}
