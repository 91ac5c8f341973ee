import { DomainError } from '../errors/domain-error.js';

/** Missing or wrong credentials; answered 401 with `WWW-Authenticate: Bearer`. */
export class UnauthorizedError extends DomainError {
  readonly kind = 'unauthorized';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The credentials of an `Authorization: Bearer <credentials>` header (scheme case-insensitive).
 * Throws UnauthorizedError saying what is wrong with the header.
 */
export function readBearer(header: string | string[] | undefined): string {
  if (header === undefined || header === '') {
    throw new UnauthorizedError('AUTH_MISSING', 'Authorization header is missing; send "Authorization: Bearer <token>"');
  }
  if (Array.isArray(header)) {
    throw new UnauthorizedError('AUTH_INVALID', 'send exactly one Authorization header');
  }
  const match = /^([A-Za-z]+) +([\x21-\x7e]+) *$/.exec(header);
  if (!match) {
    throw new UnauthorizedError('AUTH_INVALID', 'Authorization header must be "Bearer <token>"');
  }
  if (match[1].toLowerCase() !== 'bearer') {
    throw new UnauthorizedError('AUTH_SCHEME', `Authorization scheme must be Bearer, got ${match[1].slice(0, 20)}`);
  }
  return match[2];
}
