import { describe, expect, it } from '@jest/globals';
import { isDelivered, nextAttemptAt, RETRY_DELAY_CAP_MS, retryDelayMs } from './retry-schedule.js';

describe(retryDelayMs.name, () => {
  it.each([
    [1, 1000, 1000],
    [2, 1000, 2000],
    [3, 1000, 4000],
    [4, 1000, 8000],
    [10, 1000, 512_000],
    [12, 1000, 2_048_000],
    [13, 1000, RETRY_DELAY_CAP_MS],
    [500, 1000, RETRY_DELAY_CAP_MS],
    [1, 100, 100],
    [4, 100, 800],
    [0, 1000, 1000],
  ])('after %i failed attempts with a base of %i ms waits %i ms', (failed, base, expected) => {
    expect(retryDelayMs(failed, base)).toBe(expected);
  });

  it('never exceeds a cap given', () => {
    expect(retryDelayMs(5, 1000, 3000)).toBe(3000);
  });

  it('makes about 33 attempts in 24 hours with the defaults', () => {
    let elapsed = 0;
    let attempts = 1;
    const createdAt = new Date(0);
    for (;;) {
      const next = nextAttemptAt({ failedAttempts: attempts, createdAt, now: new Date(elapsed), policy: { baseMs: 1000, maxAgeMs: 86_400_000 } });
      if (!next) break;
      elapsed = next.getTime();
      attempts += 1;
    }
    expect(attempts).toBeGreaterThanOrEqual(30);
    expect(attempts).toBeLessThanOrEqual(36);
    expect(elapsed).toBeLessThanOrEqual(86_400_000);
  });
});

describe(nextAttemptAt.name, () => {
  const createdAt = new Date('2026-11-22T10:00:00.000Z');
  const policy = { baseMs: 1000, maxAgeMs: 10_000 };
  it.each([
    ['after the first failure', 1, 0, '2026-11-22T10:00:01.000Z'],
    ['after the second failure', 2, 1000, '2026-11-22T10:00:03.000Z'],
    ['when the next attempt falls exactly at the end of the window', 3, 6000, '2026-11-22T10:00:10.000Z'],
    ['when the next attempt would fall past the window', 4, 6001, null],
    ['when the window is already over', 1, 20_000, null],
  ])('%s', (_, failedAttempts, elapsedMs, expected) => {
    const next = nextAttemptAt({ failedAttempts, createdAt, now: new Date(createdAt.getTime() + elapsedMs), policy });
    expect(next?.toISOString() ?? null).toBe(expected);
  });
});

describe(isDelivered.name, () => {
  it.each([
    [200, true],
    [201, true],
    [204, true],
    [299, true],
    [199, false],
    [301, false],
    [302, false],
    [400, false],
    [410, false],
    [500, false],
    [503, false],
    [null, false],
  ])('%p → %p', (status, expected) => {
    expect(isDelivered(status)).toBe(expected);
  });
});
