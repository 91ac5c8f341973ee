import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsDate, IsInt, IsUUID, Max, Min } from 'class-validator';
import { PageOf, PageQueryDto } from '../../../../shared/http/pagination.js';
import { IsOmittable } from '../../../../shared/http/validation.js';
import { parseJsonPreservingNumbers } from '../../../../shared/json/json-text.js';
import type { ApiLogEntry } from '../../domain/api-log-entry.entity.js';

export class ListApiLogQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOmittable()
  @IsUUID()
  tokenId?: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Only calls received at or after this time' })
  @IsOmittable()
  @Type(() => Date)
  @IsDate()
  since?: Date;

  @ApiPropertyOptional({ type: String, format: 'date-time', description: 'Only calls received before this time' })
  @IsOmittable()
  @Type(() => Date)
  @IsDate()
  until?: Date;

  @ApiPropertyOptional({ example: 400, description: 'Only calls answered with this status code' })
  @IsOmittable()
  @Type(() => Number)
  @IsInt()
  @Min(100)
  @Max(599)
  statusCode?: number;
}

export class ApiLogEntryDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) tokenId!: string;
  @ApiProperty({ format: 'date-time' }) receivedAt!: string;
  @ApiProperty({ example: 'POST' }) method!: string;
  @ApiProperty({ example: '/v1/trace' }) path!: string;
  @ApiProperty({ example: 202 }) statusCode!: number;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { 'content-type': 'application/json', 'user-agent': 'zipkin-reporter' }, description: 'Request headers; Authorization and cookies are never stored' })
  headers!: Record<string, string>;
  @ApiProperty({ enum: ['json', 'text', 'none'], description: 'json: `body` is the JSON received; text: `body` is the raw text of a body that was not JSON; none: the body could not be read (too large, corrupt compression)' })
  bodyKind!: string;
  @ApiProperty({ nullable: true, description: 'The JSON received (numbers with their digits as sent), the raw text, or null', oneOf: [{ type: 'object' }, { type: 'array' }, { type: 'string' }] })
  body!: unknown;
  @ApiProperty({ type: 'array', nullable: true, items: { type: 'object' }, description: 'For an accepted call: per payload, what each filter did' })
  outcome!: unknown;
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: { code: { type: 'string', nullable: true }, message: { type: 'string' } },
    example: { code: 'JSON_INVALID', message: 'body is not valid JSON: …' },
    description: 'For a rejected call: the error answered',
  })
  error!: { code: string | null; message: string } | null;
}

export const ApiLogPageDto = PageOf(ApiLogEntryDto, 'ApiLogPageDto');

export function toApiLogEntryDto(entry: ApiLogEntry): ApiLogEntryDto {
  let body: unknown = entry.body;
  if (entry.bodyKind === 'json' && entry.body !== null) {
    try {
      body = parseJsonPreservingNumbers(entry.body);
    } catch {
      body = entry.body;
    }
  }
  return {
    id: entry.id,
    tokenId: entry.tokenId,
    receivedAt: entry.receivedAt.toISOString(),
    method: entry.method,
    path: entry.path,
    statusCode: entry.statusCode,
    headers: entry.headers,
    bodyKind: entry.bodyKind,
    body,
    outcome: entry.outcome,
    error: entry.error,
  };
}
