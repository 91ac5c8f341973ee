/** How a domain error surfaces; the one exception filter maps each kind to an HTTP status. */
export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable';

/** A rule of the domain was broken. Services throw these, never HTTP exceptions. */
export abstract class DomainError extends Error {
  /** Stable, documented code such as `FILTER_NOT_FOUND`. */
  abstract readonly code: string;
  abstract readonly kind: ErrorKind;
  /** Structured detail for the client (e.g. the fields that failed, the known template ids). */
  readonly details?: unknown;

  constructor(message: string, details?: unknown) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

/** An id that names nothing (or is not an id at all). */
export class NotFoundError extends DomainError {
  readonly kind = 'not_found';
  constructor(
    readonly code: string,
    what: string,
    id: string,
  ) {
    super(`${what} ${JSON.stringify(id)} was not found`);
  }
}

/** Input that is well-formed JSON but breaks a rule. */
export class InvalidInputError extends DomainError {
  readonly kind = 'invalid';
  constructor(
    readonly code: string,
    message: string,
    details?: unknown,
  ) {
    super(message, details);
  }
}
