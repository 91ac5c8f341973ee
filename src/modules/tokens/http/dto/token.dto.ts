import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import { IsOmittable } from '../../../../shared/http/validation.js';
import { PageOf } from '../../../../shared/http/pagination.js';
import { TOKEN_NAME_MAX } from '../../domain/api-token.entity.js';
import { EndpointSettingsDto } from './endpoint-settings.dto.js';

const RATE_LIMIT_MAX = 1_000_000;

export class CreateTokenDto {
  @ApiProperty({ minLength: 1, maxLength: TOKEN_NAME_MAX, example: 'zipkin-production' })
  @IsString()
  @Length(1, TOKEN_NAME_MAX)
  name!: string;

  @ApiPropertyOptional({ default: false, description: 'Store every call made with this token in the API log (switches itself off after 48 hours)' })
  @IsOmittable()
  @IsBoolean()
  debug?: boolean;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 1, maximum: RATE_LIMIT_MAX, description: 'Requests a minute; null uses INTAKE_RATE_LIMIT' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(RATE_LIMIT_MAX)
  rateLimitPerMinute?: number | null;
}

export class UpdateTokenDto {
  @ApiPropertyOptional({ minLength: 1, maxLength: TOKEN_NAME_MAX, example: 'zipkin-staging' })
  @IsOmittable()
  @IsString()
  @Length(1, TOKEN_NAME_MAX)
  name?: string;

  @ApiPropertyOptional({ description: 'true (re)starts the debug window; false stops logging now' })
  @IsOmittable()
  @IsBoolean()
  debug?: boolean;

  @ApiPropertyOptional({ type: Number, nullable: true, minimum: 1, maximum: RATE_LIMIT_MAX, description: 'Requests a minute; null uses INTAKE_RATE_LIMIT' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(RATE_LIMIT_MAX)
  rateLimitPerMinute?: number | null;
}

export class TokenDto {
  @ApiProperty({ format: 'uuid' })
  id!: string;

  @ApiProperty({ example: 'zipkin-production' })
  name!: string;

  @ApiProperty({ description: 'Calls are being stored in the API log' })
  debug!: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  debugEnabledAt!: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When debug switches itself off' })
  debugExpiresAt!: string | null;

  @ApiProperty({ type: Number, nullable: true, description: 'Requests a minute; null means the service default' })
  rateLimitPerMinute!: number | null;

  @ApiProperty({ format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last intake call (to the minute)' })
  lastUsedAt!: string | null;
}

export class CreatedTokenDto extends TokenDto {
  @ApiProperty({ description: 'The secret, shown this once. Send it as `Authorization: Bearer <token>`', example: 'iit_3q2x…' })
  token!: string;

  @ApiProperty({ type: EndpointSettingsDto, description: 'The endpoint settings with the secret filled in (`secretPlaceholder` is null), this once' })
  endpointSettings!: EndpointSettingsDto;
}

export const TokenPageDto = PageOf(TokenDto, 'TokenPageDto');

/** The answer's shape of a token; never the secret or its hash. */
export function toTokenDto(token: {
  id: string;
  name: string;
  debugEnabledAt: Date | null;
  debugExpiresAt: Date | null;
  rateLimitPerMinute: number | null;
  createdAt: Date;
  lastUsedAt: Date | null;
  isDebugActive(now: Date): boolean;
}, now: Date): TokenDto {
  const debug = token.isDebugActive(now);
  return {
    id: token.id,
    name: token.name,
    debug,
    debugEnabledAt: debug ? (token.debugEnabledAt?.toISOString() ?? null) : null,
    debugExpiresAt: debug ? (token.debugExpiresAt?.toISOString() ?? null) : null,
    rateLimitPerMinute: token.rateLimitPerMinute,
    createdAt: token.createdAt.toISOString(),
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
  };
}
