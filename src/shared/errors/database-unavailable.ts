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

/** An error and the errors it wraps (`cause`, or the ORM's `previous`), outermost first; a cycle ends it. */
function* causeChain(error: unknown): Generator<{ code?: unknown; message?: unknown }> {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    yield current as { code?: unknown; message?: unknown };
    current = (current as { cause?: unknown; previous?: unknown }).cause ?? (current as { previous?: unknown }).previous;
  }
}

/** True when an error (or one it wraps) says the database is down or unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const { code, message } of causeChain(error)) {
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  }
  return false;
}

/** The messages (and codes) of an error and the errors it wraps, outermost first, each message once. */
export function describeCause(error: unknown): string {
  const parts: Array<{ message: string; code?: string }> = [];
  for (const current of causeChain(error)) {
    const { code, message } = current;
    const text = typeof message === 'string' ? message.slice(0, 300) : String(current);
    const same = parts.find((part) => part.message === text);
    if (!same) parts.push({ message: text, ...(typeof code === 'string' ? { code } : {}) });
    else if (same.code === undefined && typeof code === 'string') same.code = code;
  }
  if (parts.length === 0) return String(error);
  return parts.map((part) => (part.code ? `${part.message} [${part.code}]` : part.message)).join(' <- ');
}

/** How often, at most, the cause of 503 answers is logged while the database stays unavailable. */
export const UNAVAILABLE_LOG_INTERVAL_MS = 10_000;

/**
 * Logs why calls are answered 503: the database error behind them, at most once an interval, with
 * how many calls were answered 503 since the previous line. Enough to tell an outage from pool
 * exhaustion at 3 a.m., without a line per call while the database is down.
 */
export class UnavailableLog {
  private lastAt = Number.NEGATIVE_INFINITY;
  private calls = 0;

  constructor(
    private readonly logger: { warn(message: string): void },
    private readonly intervalMs = UNAVAILABLE_LOG_INTERVAL_MS,
  ) {}

  report(error: unknown, now = Date.now()): void {
    this.calls += 1;
    if (now - this.lastAt < this.intervalMs) return;
    this.logger.warn(`answering 503 DATABASE_UNAVAILABLE to ${this.calls} call(s) since the last report; cause: ${describeCause(error)}`);
    this.lastAt = now;
    this.calls = 0;
  }
}
