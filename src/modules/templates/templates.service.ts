import { Injectable } from '@nestjs/common';
import { TemplatesFacade, type IntegrationTemplate } from './templates.facade.js';
import { UnknownTemplateError } from './domain/template.errors.js';

const TEMPLATE_ID = /^[a-z0-9]+(-[a-z0-9]+)*$/;

/** The registry that template modules add themselves to at start-up. */
@Injectable()
export class TemplatesService implements TemplatesFacade {
  private readonly templates = new Map<string, IntegrationTemplate>();

  add(template: IntegrationTemplate): void {
    if (!TEMPLATE_ID.test(template.id)) throw new Error(`template id ${JSON.stringify(template.id)} must be kebab-case`);
    if (this.templates.has(template.id)) throw new Error(`template ${template.id} is registered twice`);
    this.templates.set(template.id, Object.freeze(structuredClone(template)));
  }

  list(): IntegrationTemplate[] {
    return [...this.templates.values()].sort((a, b) => a.id.localeCompare(b.id));
  }

  ids(): string[] {
    return this.list().map((t) => t.id);
  }

  get(id: string): IntegrationTemplate {
    const template = this.templates.get(id);
    if (!template) throw new UnknownTemplateError(id, this.ids());
    return template;
  }
}
