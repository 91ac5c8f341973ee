import 'reflect-metadata';
import { Logger, type LogLevel as NestLogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { LOG_LEVELS, type AppConfig } from './config/config.js';
import { AppModule } from './app.module.js';
import type { DatabaseOptions } from './database/database.module.js';
import { registerBodyParsers } from './shared/http/body-parsers.js';
import { AllExceptionsFilter } from './shared/http/exception.filter.js';
import { createValidationPipe } from './shared/http/validation.js';
import { setupSwagger } from './swagger.js';

/** Largest intake body, as sent and after decompression: the Zipkin reporter's messageMaxBytes. */
export const MAX_BODY_BYTES = 5_242_880;

export interface CreateAppOptions {
  config: AppConfig;
  database: DatabaseOptions;
  /** Nest's own log output; defaults to the configured level. */
  logger?: false | NestLogLevel[];
}

/** Builds the application (not listening yet): used by main.ts and by the e2e tests. */
export async function createApp(options: CreateAppOptions): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({ bodyLimit: MAX_BODY_BYTES, trustProxy: false });
  registerBodyParsers(adapter.getInstance(), { bodyLimit: MAX_BODY_BYTES, rawPrefixes: ['/v1/'] });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(options), adapter, {
    bodyParser: false,
    logger: options.logger ?? nestLogLevels(options.config.logLevel),
  });
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter());
  setupSwagger(app);
  await app.init();
  return app;
}

function nestLogLevels(level: AppConfig['logLevel']): NestLogLevel[] {
  const order = LOG_LEVELS.indexOf(level);
  const map: Record<string, NestLogLevel> = { fatal: 'fatal', error: 'error', warn: 'warn', info: 'log', debug: 'debug', verbose: 'verbose' };
  return LOG_LEVELS.slice(0, order + 1).map((l) => map[l]);
}

export { Logger };
