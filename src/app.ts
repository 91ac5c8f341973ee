import 'reflect-metadata';
import { Logger, type LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LOG_LEVELS, type AppConfig } from './config/config.js';
import { fastifyTrustProxy, HSTS_MAX_AGE_SECONDS, loadTlsCredentials } from './config/transport.js';
import { AppModule, type AppModuleOptions } from './app.module.js';
import { registerBodyParsers } from './shared/http/body-parsers.js';
import { AllExceptionsFilter } from './shared/http/exception.filter.js';
import { createValidationPipe } from './shared/http/validation.js';
import { offerTemplates, setupSwagger } from './swagger.js';
import { Logger as PinoLogger } from 'nestjs-pino';
import { createRootLogger, echoRequestId, RequestLogController, requestId } from './config/logging.js';
import { MetricsFacade } from './modules/metrics/contracts.js';
import { MAX_BODY_BYTES } from './shared/http/limits.js';
import { TemplatesFacade } from './modules/templates/contracts.js';


export interface CreateAppOptions extends Omit<AppModuleOptions, 'logger'> {
  /** Nest's own log output: through pino at LOG_LEVEL by default; false silences it (tests). */
  logger?: false | NestLogLevel[];
}

/** Builds the application (not listening yet): used by main.ts and by the e2e tests. */
export async function createApp(options: CreateAppOptions): Promise<NestFastifyApplication> {
  const { tls, trustProxy } = options.config;
  const credentials = tls ? loadTlsCredentials(tls) : null;
  // With a certificate the service serves HTTPS itself; otherwise plain HTTP for a proxy in front.
  const logger = createRootLogger(options.config);
  const adapter = new FastifyAdapter({
    bodyLimit: MAX_BODY_BYTES,
    trustProxy: fastifyTrustProxy(trustProxy),
    loggerInstance: logger,
    logController: new RequestLogController(),
    genReqId: requestId,
    ...(credentials ? { https: { cert: credentials.cert, key: credentials.key } } : {}),
  });
  echoRequestId(adapter.getInstance());
  registerBodyParsers(adapter.getInstance(), { bodyLimit: MAX_BODY_BYTES, rawPrefixes: ['/v1/'] });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot({ ...options, logger }), adapter, {
    bodyParser: false,
    bufferLogs: options.logger !== false,
    logger: options.logger ?? nestLogLevels(options.config.logLevel),
  });
  // Nest's own messages go through pino too (JSON lines, same level), unless a test silenced them.
  if (options.logger !== false) app.useLogger(app.get(PinoLogger));
  // Intake calls by route and status, and their latency, whatever answered them (guards included).
  const metrics = app.get(MetricsFacade);
  adapter.getInstance().addHook('onResponse', (request, reply, done) => {
    metrics.observeHttp(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // helmet's defaults, on every answer (errors and 404s included). HSTS and upgrading requests only
  // when the service serves HTTPS itself; behind a proxy, the proxy sends them.
  app.useSecurityHeaders({
    strictTransportSecurity: credentials ? { maxAge: HSTS_MAX_AGE_SECONDS, includeSubDomains: true } : false,
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: credentials ? true : null } },
  });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  // The templates are known once their modules have registered: dropdowns in Swagger UI.
  const templates = app.get(TemplatesFacade).list();
  setupSwagger(app, (document) => offerTemplates(document, templates));
  await app.init();
  return app;
}

function nestLogLevels(level: AppConfig['logLevel']): NestLogLevel[] {
  const order = LOG_LEVELS.indexOf(level);
  const map: Record<string, NestLogLevel> = { fatal: 'fatal', error: 'error', warn: 'warn', info: 'log', debug: 'debug', verbose: 'verbose' };
  return LOG_LEVELS.slice(0, order + 1).map((l) => map[l]);
}

export { Logger };
