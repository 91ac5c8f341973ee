import { NotFoundError } from '../../../shared/errors/domain-error.js';

export class WebhookNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('WEBHOOK_NOT_FOUND', 'Webhook subscription', id);
  }
}
