import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { DomainError, InvalidInputError } from '../errors/domain-error.js';

/** The body of a raw route, untouched: its route decodes, limits and parses it itself. */
export class RawBody {
  constructor(readonly bytes: Buffer) {}
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly kind = 'unsupported_media_type';
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

export interface BodyParserOptions {
  /** Largest body as sent, in bytes. */
  bodyLimit: number;
  /** Path prefixes whose routes receive a RawBody for any content type (the intake). */
  rawPrefixes: string[];
}

/**
 * Admin routes get JSON parsed here (`__proto__` and `constructor.prototype` keys rejected);
 * raw routes get the bytes, so that authentication runs before any parsing and the route can
 * answer precisely (415, gzip, size after decompression) and keep the raw text of a bad body.
 */
export function registerBodyParsers(fastify: FastifyInstance, options: BodyParserOptions): void {
  const isRaw = (request: FastifyRequest) => options.rawPrefixes.some((prefix) => request.url.startsWith(prefix));
  const parserOptions = { parseAs: 'buffer' as const, bodyLimit: options.bodyLimit };

  const json = (request: FastifyRequest, body: Buffer | string, done: (err: Error | null, body?: unknown) => void) => {
    const bytes = body as Buffer;
    if (isRaw(request)) return done(null, new RawBody(bytes));
    if (bytes.length === 0) return done(null, undefined);
    try {
      done(null, secureJson.parse(bytes, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch (error) {
      done(new InvalidInputError('JSON_INVALID', `body is not valid JSON: ${(error as Error).message}`));
    }
  };
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', parserOptions, json);
  fastify.addContentTypeParser(/^application\/[\w.-]+\+json$/i, parserOptions, json);
  fastify.addContentTypeParser('*', parserOptions, (request, body, done) => {
    if (isRaw(request)) return done(null, new RawBody(body as unknown as Buffer));
    done(new UnsupportedMediaTypeError(`Content-Type must be application/json, got ${String(request.headers['content-type'] ?? 'none').slice(0, 100)}`));
  });
}

/** The RawBody of a raw route (an empty one when the request had no body). */
export const RawRequestBody = createParamDecorator((_: unknown, context: ExecutionContext): RawBody => {
  const body = context.switchToHttp().getRequest<{ body?: unknown }>().body;
  return body instanceof RawBody ? body : new RawBody(Buffer.alloc(0));
});
