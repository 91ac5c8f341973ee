import { randomUUID } from 'node:crypto';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Params } from 'nestjs-pino';
import { pino, type Logger } from 'pino';
import type { AppConfig } from './config.js';

const PINO_LEVEL: Record<AppConfig['logLevel'], string> = { fatal: 'fatal', error: 'error', warn: 'warn', info: 'info', debug: 'debug', verbose: 'trace' };
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The one pino logger: JSON lines at LOG_LEVEL, credentials redacted wherever they appear. */
export function createRootLogger(config: AppConfig): Logger {
  return pino({
    level: PINO_LEVEL[config.logLevel],
    redact: {
      paths: ['req.headers.authorization', 'req.headers["proxy-authorization"]', 'req.headers.cookie', 'headers.authorization', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  });
}

/** Fastify's request ids: the caller's `X-Request-Id` when it is sane, else a new UUID. */
export function requestId(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * One log line per answered request, with its request id: successful calls at debug, 4xx at info,
 * 5xx (or a failure) at error. Headers are not logged at all. Replaces Fastify's two default lines.
 */
export class RequestLogController extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const level = error || reply.statusCode >= 500 ? 'error' : reply.statusCode >= 400 ? 'info' : 'debug';
    request.log[level]({ method: request.method, url: request.url, statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 }, 'request completed');
  }
}

/** Echoes the request id in the answer's `X-Request-Id`. */
export function echoRequestId(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
}

/**
 * nestjs-pino on the same logger: Nest's own messages become JSON lines too. Its per-request
 * middleware is not applied (no routes): Fastify already logs each request with its id
 * (RequestLogController), and the middleware only cost every call a middleware run.
 */
export function loggerParams(logger: Logger): Params {
  return { pinoHttp: { logger }, useExisting: true, forRoutes: [] };
}
