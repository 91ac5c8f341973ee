import { createHash, timingSafeEqual } from 'node:crypto';
import { applyDecorators, Inject, Injectable, UseGuards, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { ApiBearerAuth, ApiUnauthorizedResponse } from '@nestjs/swagger';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { ErrorResponseDto } from '../http/error-response.dto.js';
import { readBearer, UnauthorizedError } from './bearer.js';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Admin routes: `Authorization: Bearer <ADMIN_API_KEY>`, compared in constant time. */
@Injectable()
export class AdminKeyGuard implements CanActivate {
  private readonly expected: Buffer;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.expected = digest(config.adminApiKey);
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined> }>();
    const given = readBearer(request.headers.authorization);
    // Comparing fixed-length digests keeps the time independent of where the inputs differ.
    if (!timingSafeEqual(digest(given), this.expected)) {
      throw new UnauthorizedError('ADMIN_KEY_INVALID', 'the admin API key is not valid');
    }
    return true;
  }
}

/** Security scheme names in the OpenAPI document. */
export const ADMIN_AUTH = 'admin-key';
export const TOKEN_AUTH = 'api-token';

/** Puts a controller behind the admin key, in code and in the OpenAPI document. */
export function AdminApi(): ClassDecorator {
  return applyDecorators(
    UseGuards(AdminKeyGuard),
    ApiBearerAuth(ADMIN_AUTH),
    ApiUnauthorizedResponse({ description: 'Missing or wrong admin key', type: ErrorResponseDto }),
  );
}
