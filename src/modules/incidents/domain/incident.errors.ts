import { NotFoundError } from '../../../shared/errors/domain-error.js';

export class IncidentNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('INCIDENT_NOT_FOUND', 'Incident', id);
  }
}
