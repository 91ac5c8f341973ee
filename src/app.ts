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
import { MAX_BODY_BYTES } from './shared/http/limits.js';
import { TemplatesFacade } from './modules/templates/contracts.js';


export interface CreateAppOptions extends AppModuleOptions {
  /** Nest's own log output; defaults to the configured level. */
  logger?: false | NestLogLevel[];
}

/** Builds the application (not listening yet): used by main.ts and by the e2e tests. */
export async function createApp(options: CreateAppOptions): Promise<NestFastifyApplication> {
  const { tls, trustProxy } = options.config;
  const credentials = tls ? loadTlsCredentials(tls) : null;
  // With a certificate the service serves HTTPS itself; otherwise plain HTTP for a proxy in front.
  const adapter = new FastifyAdapter({ bodyLimit: MAX_BODY_BYTES, trustProxy: fastifyTrustProxy(trustProxy), ...(credentials ? { https: { cert: credentials.cert, key: credentials.key } } : {}) });
  registerBodyParsers(adapter.getInstance(), { bodyLimit: MAX_BODY_BYTES, rawPrefixes: ['/v1/'] });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(options), adapter, {
    bodyParser: false,
    logger: options.logger ?? nestLogLevels(options.config.logLevel),
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
