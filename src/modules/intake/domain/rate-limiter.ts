/**
 * Per-token rate limit as a token bucket: up to `perMinute` calls at once, refilled at
 * `perMinute / 60` a second. Kept in memory, per instance. Pure apart from its own state.
 */
export interface RateDecision {
  allowed: boolean;
  /** Whole seconds until a call would be allowed (0 when allowed). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  at: number;
  perMinute: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly maxBuckets = 100_000) {}

  take(key: string, perMinute: number, now: number): RateDecision {
    const rate = perMinute / 60_000;
    let bucket = this.buckets.get(key);
    if (!bucket || bucket.perMinute !== perMinute) {
      bucket = { tokens: perMinute, at: now, perMinute };
      this.remember(key, bucket);
    }
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) * rate);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / rate / 1000)) };
  }

  private remember(key: string, bucket: Bucket): void {
    // Bounded memory: forget the oldest bucket (a forgotten bucket starts full again).
    if (this.buckets.size >= this.maxBuckets) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    this.buckets.set(key, bucket);
  }
}
