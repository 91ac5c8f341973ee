import { InvalidInputError } from '../../../shared/errors/domain-error.js';

export class UnknownTemplateError extends InvalidInputError {
  constructor(id: string, known: string[]) {
    super('TEMPLATE_UNKNOWN', `template ${JSON.stringify(id)} is not known; known templates: ${known.join(', ')}`, { knownTemplates: known });
  }
}
