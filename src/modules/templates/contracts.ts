/** The templates module's public surface: what a template is and how other modules read them. */

export { TemplatesFacade, type IntegrationTemplate, type TemplateTrigger, type TemplateResolve } from './templates.facade.js';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface TemplatesEvents {}

export { TemplatesModule } from './templates.module.js';
export { UnknownTemplateError } from './domain/template.errors.js';
