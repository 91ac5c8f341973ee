import { NotFoundError } from '../../../shared/errors/domain-error.js';

export class TokenNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('TOKEN_NOT_FOUND', 'API token', id);
  }
}
