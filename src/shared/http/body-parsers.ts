import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import secureJson from 'secure-json-parse';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../errors/body-errors.js';
import { InvalidInputError } from '../errors/domain-error.js';

/** The body of a raw route, untouched: its route decodes, limits and parses it itself. */
export class RawBody {
  constructor(
    readonly bytes: Buffer,
    /** The body was larger than the limit; `bytes` is empty and the rest was not read. */
    readonly tooLarge = false,
  ) {}

  /** The route is done with the body: frees a large one now (see `releaseBuffer`); `bytes` reads as empty afterwards. */
  release(): void {
    releaseBuffer(this.bytes);
  }
}

const RELEASE_MIN_BYTES = 1024 * 1024;

/**
 * Frees a large buffer's memory at once rather than at V8's next full collection: bodies of a few
 * MiB, which outlive young collections while they wait and are processed, otherwise pile up outside
 * the heap (peak RSS; docs/DECISIONS.md, "Memory"). Only a buffer of at least 1 MiB that spans its
 * whole ArrayBuffer is freed (never a slice of memory that other buffers share, such as Node's
 * pool); the caller must be its last user, since the buffer reads as empty afterwards.
 */
export function releaseBuffer(buffer: Buffer): void {
  const memory = buffer.buffer as ArrayBuffer & { readonly detached?: boolean; transfer?: (length: number) => ArrayBuffer };
  if (buffer.byteLength < RELEASE_MIN_BYTES || buffer.byteOffset !== 0 || buffer.byteLength !== memory.byteLength) return;
  if (memory.detached === false && typeof memory.transfer === 'function') memory.transfer(0); // detaching frees the memory
}

export interface BodyParserOptions {
  /** Largest body as sent, in bytes. */
  bodyLimit: number;
  /** Path prefixes whose routes receive a RawBody for any content type (the intake). */
  rawPrefixes: string[];
}

type Done = (err: Error | null, body?: unknown) => void;

/**
 * Reads a request body up to `limit` bytes. Past the limit (or when Content-Length says so up
 * front) it stops keeping bytes and reports `tooLarge`, discarding the rest as it arrives.
 */
function readLimited(stream: IncomingMessage, limit: number, done: (bytes: Buffer, tooLarge: boolean) => void): void {
  const declared = Number(stream.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    // Discard the body, but answer once it has arrived: answering while the sender is still writing
    // makes Node close the connection, and the sender sees EPIPE or a reset instead of the 413.
    let reported = false;
    const report = () => {
      if (!reported) done(Buffer.alloc(0), true);
      reported = true;
    };
    stream.once('end', report);
    stream.once('error', report);
    stream.resume();
    return;
  }
  if (Number.isFinite(declared) && declared >= 0) {
    // The size is known: copy each chunk into place as it arrives, so that chunks do not pile up
    // until the end and then get copied again (a 5 MiB body would briefly take twice its size).
    // Allocated with the first chunk: a sender that only announces a size costs nothing.
    let body: Buffer | null = null;
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      body ??= Buffer.allocUnsafe(declared);
      size += chunk.copy(body, size);
    });
    stream.once('end', () => done(body === null ? Buffer.alloc(0) : body.subarray(0, size), false));
    stream.once('error', () => done(Buffer.alloc(0), false));
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  stream.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) {
      tooLarge = true;
      chunks.length = 0;
    } else if (!tooLarge) chunks.push(chunk);
  });
  stream.once('end', () => done(tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks, size), tooLarge));
  stream.once('error', () => done(Buffer.alloc(0), tooLarge));
}

/**
 * Admin routes get JSON parsed here (`__proto__` and `constructor.prototype` keys rejected);
 * raw routes get the bytes, so that authentication runs before any parsing and the route can
 * answer precisely (415, 413, gzip, size after decompression) and log a rejected call.
 */
export function registerBodyParsers(fastify: FastifyInstance, options: BodyParserOptions): void {
  const isRaw = (request: FastifyRequest) => options.rawPrefixes.some((prefix) => request.url.startsWith(prefix));
  const tooLarge = () => new PayloadTooLargeError(`body exceeds ${options.bodyLimit} bytes`);

  const json = (request: FastifyRequest, payload: IncomingMessage, done: Done) =>
    readLimited(payload, options.bodyLimit, (bytes, over) => {
      if (isRaw(request)) return done(null, new RawBody(bytes, over));
      if (over) return done(tooLarge());
      if (bytes.length === 0) return done(null, undefined);
      let value: unknown;
      try {
        value = secureJson.parse(bytes, undefined, { protoAction: 'error', constructorAction: 'error' });
      } catch (error) {
        return done(new InvalidInputError('JSON_INVALID', `body is not valid JSON: ${(error as Error).message}`));
      }
      // PostgreSQL text cannot hold U+0000: refuse it here rather than fail (as a 503) at the insert.
      if (bytes.includes(NUL_ESCAPE) && holdsNul(value)) {
        return done(new InvalidInputError('BODY_NUL_CHARACTER', 'body holds a NUL character (\\u0000), which cannot be stored; remove it'));
      }
      done(null, value);
    });
  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', json);
  fastify.addContentTypeParser(/^application\/[\w.-]+\+json$/i, json);
  fastify.addContentTypeParser('*', (request, payload, done) => {
    if (!isRaw(request)) {
      payload.resume();
      return done(new UnsupportedMediaTypeError(`Content-Type must be application/json, got ${String(request.headers['content-type'] ?? 'none').slice(0, 100)}`));
    }
    readLimited(payload, options.bodyLimit, (bytes, over) => done(null, new RawBody(bytes, over)));
  });
}

const NUL_ESCAPE = Buffer.from('\\u0000');

/** True when a string or a key anywhere in a parsed JSON value holds U+0000 (iterative: any depth). */
function holdsNul(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return true;
    } else if (Array.isArray(current)) {
      for (const child of current) stack.push(child);
    } else if (typeof current === 'object' && current !== null) {
      for (const [key, child] of Object.entries(current)) {
        if (key.includes('\u0000')) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

/** The RawBody of a raw route (an empty one when the request had no body). */
export const RawRequestBody = createParamDecorator((_: unknown, context: ExecutionContext): RawBody => {
  const body = context.switchToHttp().getRequest<{ body?: unknown }>().body;
  return body instanceof RawBody ? body : new RawBody(Buffer.alloc(0));
});
