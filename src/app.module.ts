import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { ScheduleModule } from '@nestjs/schedule';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { loggerParams } from './config/logging.js';
import { MetricsModule } from './modules/metrics/metrics.module.js';
import { APP_CONFIG, type AppConfig } from './config/config.js';
import { DatabaseModule, type DatabaseOptions } from './database/database.module.js';
import { HealthController } from './health/health.controller.js';
import { EventsModule } from './shared/events/events.module.js';
import { AdminKeyGuard } from './shared/auth/admin-key.guard.js';
import { TokensModule } from './modules/tokens/tokens.module.js';
import { TemplatesModule } from './modules/templates/templates.module.js';
import { FiltersModule } from './modules/filters/filters.module.js';
import { IncidentsModule } from './modules/incidents/incidents.module.js';
import { IntakeModule } from './modules/intake/intake.module.js';
import { ApiLogModule } from './modules/api-log/api-log.module.js';
import { NotificationsModule } from './modules/notifications/notifications.module.js';
import { ZipkinTracingTemplateModule } from './integrations/zipkin-tracing/zipkin-tracing.module.js';
import { AlertWebhookTemplateModule } from './integrations/alert-webhook/alert-webhook.module.js';
import { PrometheusAlertmanagerTemplateModule } from './integrations/prometheus-alertmanager/prometheus-alertmanager.module.js';

export interface AppModuleOptions {
  config: AppConfig;
  database: DatabaseOptions;
  /** The root pino logger (see config/logging.ts). */
  logger: Logger;
  /** More modules to wire in, e.g. a template module that exists only in a test. */
  imports?: Array<Type | DynamicModule>;
}

/** Wires the modules; no logic. */
@Module({})
export class AppModule {
  static forRoot(options: AppModuleOptions): DynamicModule {
    return {
      module: AppModule,
      global: true,
      imports: [
        DatabaseModule.forRoot(options.database),
        EventsModule,
        ScheduleModule.forRoot(),
        LoggerModule.forRoot(loggerParams(options.logger)),
        MetricsModule,
        TokensModule,
        TemplatesModule,
        FiltersModule,
        IncidentsModule,
        IntakeModule,
        ApiLogModule,
        NotificationsModule,
        // Integration templates: one line each.
        ZipkinTracingTemplateModule,
        AlertWebhookTemplateModule,
        PrometheusAlertmanagerTemplateModule,
        ...(options.imports ?? []),
      ],
      controllers: [HealthController],
      providers: [{ provide: APP_CONFIG, useValue: options.config }, AdminKeyGuard],
      exports: [APP_CONFIG, AdminKeyGuard],
    };
  }
}
