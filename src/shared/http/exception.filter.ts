import { STATUS_CODES } from 'node:http';
import { Catch, HttpException, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { DomainError, type ErrorKind } from '../errors/domain-error.js';
import { MAX_BODY_BYTES } from './limits.js';
import { DatabaseUnavailableError, isDatabaseUnavailable, UnavailableLog } from '../errors/database-unavailable.js';

const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
};

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  code?: string;
  details?: unknown;
}

const FRAMEWORK_ERRORS: Record<number, { code: string; message?: string }> = {
  404: { code: 'ROUTE_NOT_FOUND' },
  413: { code: 'PAYLOAD_TOO_LARGE', message: `body exceeds ${MAX_BODY_BYTES} bytes` },
  415: { code: 'UNSUPPORTED_MEDIA_TYPE' },
};

/** Fastify's own errors (body parsing, limits) carry a code and a status. */
interface FastifyError {
  code?: string;
  statusCode?: number;
  message: string;
}

/** Turns any thrown value into the JSON error body; internals never leave the server. */
export function toErrorBody(thrown: unknown): { body: ErrorBody; headers: Record<string, string> } {
  const error = isDatabaseUnavailable(thrown) ? new DatabaseUnavailableError() : thrown;
  const headers: Record<string, string> = {};
  const make = (statusCode: number, message: string, code?: string, details?: unknown): ErrorBody => ({
    statusCode,
    error: STATUS_CODES[statusCode] ?? 'Error',
    message,
    ...(code ? { code } : {}),
    ...(details !== undefined ? { details } : {}),
  });
  if (error instanceof DomainError) {
    const status = STATUS_BY_KIND[error.kind];
    if (status === 401) headers['www-authenticate'] = `Bearer realm="incident-intake", error="invalid_token"`;
    if (error.kind === 'rate_limited' || error.kind === 'unavailable') {
      const retryAfter = (error.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      if (retryAfter !== undefined) headers['retry-after'] = String(retryAfter);
    }
    return { body: make(status, error.message, error.code, error.details), headers };
  }
  if (error instanceof HttpException) {
    // Raised by Nest or Fastify before our code runs (unknown route, body over the limit, ...).
    const status = error.getStatus();
    const response = error.getResponse();
    const message = typeof response === 'string' ? response : String((response as { message?: unknown }).message ?? error.message);
    const known = FRAMEWORK_ERRORS[status];
    return { body: make(status, known?.message ?? message, known?.code), headers };
  }
  const fastify = error as FastifyError;
  if (typeof fastify?.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500 && fastify.code?.startsWith('FST_')) {
    return { body: make(fastify.statusCode, fastify.message, fastify.code), headers };
  }
  return { body: make(500, 'An internal error occurred; it has been logged', 'INTERNAL_ERROR'), headers };
}

/** The one exception filter: every error becomes `{statusCode, error, message, code?, details?}`. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');
  private readonly unavailable = new UnavailableLog(this.logger);

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { body, headers } = toErrorBody(exception);
    if (body.statusCode >= 500 && body.statusCode !== 503) {
      this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    }
    if (body.code === 'DATABASE_UNAVAILABLE') this.unavailable.report(exception);
    void reply.status(body.statusCode).headers(headers).send(body);
  }
}
