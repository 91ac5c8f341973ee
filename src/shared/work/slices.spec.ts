import { describe, expect, it } from '@jest/globals';
import { runInSlices, runToEnd, type Steps } from './slices.js';

/** `count` steps, each advancing the clock by `stepMs`; returns how many steps ran. */
function* work(clock: { ms: number }, count: number, stepMs: number, log: string[]): Steps<number> {
  for (let i = 0; i < count; i++) {
    clock.ms += stepMs;
    log.push(`step ${i}`);
    yield;
  }
  return count;
}

describe(runInSlices.name, () => {
  it.each([
    // steps, ms per step, slice ms, pauses expected
    [0, 5, 10, 0],
    [1, 5, 10, 0],
    [2, 5, 10, 1], // 10 ms after the second step: a pause, then the end
    [10, 5, 10, 5],
    [10, 1, 10, 1],
    [3, 50, 10, 3], // every step is longer than a slice: a pause after each
    [100, 0, 10, 0], // steps that take no time never pause
  ])('%i steps of %i ms in slices of %i ms pause %i times, and return the result', async (count, stepMs, sliceMs, pauses) => {
    const clock = { ms: 0 };
    const log: string[] = [];
    const result = await runInSlices(work(clock, count, stepMs, log), { sliceMs, now: () => clock.ms, pause: async () => void log.push('pause') });
    expect(result).toBe(count);
    expect(log.filter((line) => line === 'pause')).toHaveLength(pauses);
    expect(log.filter((line) => line !== 'pause')).toHaveLength(count);
  });

  it('lets other work run during a pause (the event loop by default)', async () => {
    const clock = { ms: 0 };
    const log: string[] = [];
    const other = new Promise<void>((resolve) => setImmediate(() => (log.push('other'), resolve())));
    await runInSlices(work(clock, 4, 10, log), { sliceMs: 10, now: () => clock.ms });
    await other;
    // The immediate queued before the work runs at the first pause, between the first two steps.
    expect(log).toEqual(['step 0', 'other', 'step 1', 'step 2', 'step 3']);
  });

  it('passes an error of a step on, and runs no step after it', async () => {
    const log: string[] = [];
    function* failing(): Steps<number> {
      log.push('one');
      yield;
      throw new Error('bad group');
    }
    await expect(runInSlices(failing(), { sliceMs: 0 })).rejects.toThrow('bad group');
    expect(log).toEqual(['one']);
  });
});

describe(runToEnd.name, () => {
  it('runs every step at once and returns the result', () => {
    const clock = { ms: 0 };
    const log: string[] = [];
    expect(runToEnd(work(clock, 3, 100, log))).toBe(3);
    expect(log).toEqual(['step 0', 'step 1', 'step 2']);
  });
});
