import { NotFoundError } from '../../../shared/errors/domain-error.js';

export class FilterNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('FILTER_NOT_FOUND', 'Filter', id);
  }
}
