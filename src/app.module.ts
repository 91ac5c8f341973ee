import { Module, type DynamicModule } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from './config/config.js';
import { DatabaseModule, type DatabaseOptions } from './database/database.module.js';
import { HealthController } from './health/health.controller.js';
import { EventsModule } from './shared/events/events.module.js';
import { AdminKeyGuard } from './shared/auth/admin-key.guard.js';
import { TokensModule } from './modules/tokens/tokens.module.js';
import { TemplatesModule } from './modules/templates/templates.module.js';
import { ZipkinTracingTemplateModule } from './integrations/zipkin-tracing/zipkin-tracing.module.js';
import { AlertWebhookTemplateModule } from './integrations/alert-webhook/alert-webhook.module.js';

export interface AppModuleOptions {
  config: AppConfig;
  database: DatabaseOptions;
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
        TokensModule,
        TemplatesModule,
        // Integration templates: one line each.
        ZipkinTracingTemplateModule,
        AlertWebhookTemplateModule,
      ],
      controllers: [HealthController],
      providers: [{ provide: APP_CONFIG, useValue: options.config }, AdminKeyGuard],
      exports: [APP_CONFIG, AdminKeyGuard],
    };
  }
}
