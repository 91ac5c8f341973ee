import { DomainError } from './domain-error.js';

/** Seconds a client is asked to wait when the database cannot be reached. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * The database cannot be reached, or every connection stayed busy past the connection timeout
 * (overload); answered 503 with Retry-After. Nothing was written.
 */
export class DatabaseUnavailableError extends DomainError {
  readonly kind = 'unavailable';
  readonly code = 'DATABASE_UNAVAILABLE';
  constructor() {
    super('the database cannot be reached or is saturated; nothing was written, retry later', { retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS });
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EPIPE', 'EAI_AGAIN']);
/**
 * PostgreSQL SQLSTATE classes 08 (connection exception) and 57P (operator intervention: shutdown,
 * crash), except 08P01 (protocol violation), which a bad value such as a NUL character causes.
 */
const UNAVAILABLE_SQLSTATE = /^(08(?!P01)...|57P0[1-4])$/;
const UNAVAILABLE_MESSAGE = /timeout exceeded when trying to connect|Connection terminated|connection is closed|Client has encountered a connection error|the database system is (starting up|shutting down|in recovery mode)/i;

/** True when an error (or one it wraps) says the database is down or unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
    current = (current as { cause?: unknown; previous?: unknown }).cause ?? (current as { previous?: unknown }).previous;
  }
  return false;
}
