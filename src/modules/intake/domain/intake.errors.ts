import { DomainError, InvalidInputError } from '../../../shared/errors/domain-error.js';

/** Over the token's rate limit; answered 429 with Retry-After. */
export class RateLimitedError extends DomainError {
  readonly kind = 'rate_limited';
  readonly code = 'RATE_LIMITED';
  constructor(perMinute: number, retryAfterSeconds: number) {
    super(`rate limit of ${perMinute} requests a minute exceeded for this token; retry in ${retryAfterSeconds} s`, { retryAfterSeconds, limitPerMinute: perMinute });
  }
}

export class IdempotencyKeyInvalidError extends InvalidInputError {
  constructor() {
    super('IDEMPOTENCY_KEY_INVALID', 'Idempotency-Key must have 1 to 255 visible ASCII characters');
  }
}

/** The key was used before, within 24 hours, for a different request. */
export class IdempotencyKeyReusedError extends DomainError {
  readonly kind = 'unprocessable';
  readonly code = 'IDEMPOTENCY_KEY_REUSED';
  constructor() {
    super('this Idempotency-Key was used in the last 24 hours for a different request; use a new key for a new request');
  }
}

const KEY = /^[\x21-\x7e]{1,255}$/;

/** The Idempotency-Key header, validated; null when absent. */
export function readIdempotencyKey(value: string | undefined): string | null {
  if (value === undefined) return null;
  if (!KEY.test(value)) throw new IdempotencyKeyInvalidError();
  return value;
}
