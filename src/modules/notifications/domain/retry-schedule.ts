/** The longest wait between two attempts, whatever the base. */
export const RETRY_DELAY_CAP_MS = 3_600_000;

export interface RetryPolicy {
  /** The wait after the first failed attempt; doubled after each further failure. */
  baseMs: number;
  /** No attempt is made later than this after the delivery was created. */
  maxAgeMs: number;
  capMs?: number;
}

/** The wait after `failedAttempts` failures (1 → base, 2 → 2 × base, 3 → 4 × base …), capped. */
export function retryDelayMs(failedAttempts: number, baseMs: number, capMs = RETRY_DELAY_CAP_MS): number {
  const exponent = Math.max(0, failedAttempts - 1);
  // 2^31 × base overflows nothing in a double, and the cap applies long before.
  return Math.min(baseMs * 2 ** Math.min(exponent, 31), capMs);
}

/**
 * When to try again after a failed attempt, or null when the delivery has failed for good: the next
 * attempt would fall later than `maxAgeMs` after the delivery was created.
 */
export function nextAttemptAt(input: { failedAttempts: number; createdAt: Date; now: Date; policy: RetryPolicy }): Date | null {
  const { policy } = input;
  const next = input.now.getTime() + retryDelayMs(input.failedAttempts, policy.baseMs, policy.capMs);
  return next > input.createdAt.getTime() + policy.maxAgeMs ? null : new Date(next);
}

/** A 2xx answer is a delivery; anything else (3xx included: redirects are not followed) is retried. */
export function isDelivered(statusCode: number | null): boolean {
  return statusCode !== null && statusCode >= 200 && statusCode <= 299;
}
