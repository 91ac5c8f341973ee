import { describe, expect, it } from '@jest/globals';
import { RateLimiter } from './rate-limiter.js';

describe(RateLimiter.name, () => {
  it('allows a burst of the limit, then refuses with the seconds to wait', () => {
    const limiter = new RateLimiter();
    const decisions = Array.from({ length: 61 }, () => limiter.take('t', 60, 0));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    expect(decisions[60]).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it.each([
    [60, 1_000, true],
    [60, 999, false],
    [6, 10_000, true],
    [6, 9_000, false],
  ])('with %d a minute, refills one call after %d ms: %s', (perMinute, after, allowed) => {
    const limiter = new RateLimiter();
    for (let i = 0; i < perMinute; i++) limiter.take('t', perMinute, 0);
    expect(limiter.take('t', perMinute, after).allowed).toBe(allowed);
  });

  it('says how long to wait for a slow limit', () => {
    const limiter = new RateLimiter();
    limiter.take('t', 1, 0);
    expect(limiter.take('t', 1, 15_000)).toEqual({ allowed: false, retryAfterSeconds: 45 });
  });

  it('keeps tokens apart and starts afresh when a limit changes', () => {
    const limiter = new RateLimiter();
    limiter.take('a', 1, 0);
    expect(limiter.take('b', 1, 0).allowed).toBe(true);
    expect(limiter.take('a', 1, 0).allowed).toBe(false);
    expect(limiter.take('a', 2, 0).allowed).toBe(true);
  });

  it('bounds its memory', () => {
    const limiter = new RateLimiter(2);
    limiter.take('a', 1, 0);
    limiter.take('b', 1, 0);
    limiter.take('c', 1, 0);
    // "a" was forgotten, so it starts full again.
    expect(limiter.take('a', 1, 0).allowed).toBe(true);
  });
});
