import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { IntegrationTemplate } from './templates.facade.js';
import { TemplatesController } from './http/templates.controller.js';
import { TemplatesService } from './templates.service.js';
import { TemplatesFacade } from './templates.facade.js';

/** What `TemplatesModule.register()` returns: one template added to the registry at start-up. */
@Module({})
export class TemplateRegistrationModule {}

@Global()
@Module({
  controllers: [TemplatesController],
  providers: [TemplatesService, { provide: TemplatesFacade, useExisting: TemplatesService }],
  exports: [TemplatesFacade, TemplatesService],
})
export class TemplatesModule {
  /**
   * For a template's own module: `@Module({ imports: [TemplatesModule.register(myTemplate)] })`.
   * Importing that module (one line in app.module.ts) is all it takes to add a template.
   */
  static register(template: IntegrationTemplate): DynamicModule {
    return {
      module: TemplateRegistrationModule,
      providers: [
        {
          provide: `template:${template.id}`,
          useFactory: (registry: TemplatesService) => registry.add(template),
          inject: [TemplatesService],
        },
      ],
    };
  }
}
