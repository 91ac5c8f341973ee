import { describe, expect, it } from '@jest/globals';
import { ByteBudget } from './byte-budget.js';

const MiB = 1024 * 1024;

/** Runs `work` once `bytes` are admitted and releases them however it ends, as the intake does. */
async function run<T>(budget: ByteBudget, bytes: number, work: () => T | Promise<T>): Promise<T> {
  const release = await budget.acquire(bytes);
  try {
    return await work();
  } finally {
    release();
  }
}

/** Lets every pending microtask and setImmediate run (admission happens from a setImmediate). */
const settle = async () => {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
};

/** A piece of work that runs until `finish` is called, recording how many run at once. */
function tracker() {
  let running = 0;
  let peak = 0;
  const finishers: (() => void)[] = [];
  const work = (fail = false) => () =>
    new Promise<string>((resolve, reject) => {
      running++;
      peak = Math.max(peak, running);
      finishers.push(() => {
        running--;
        if (fail) reject(new Error('work failed'));
        else resolve('done');
      });
    });
  return { work, finishOne: () => finishers.shift()!(), running: () => running, peak: () => peak };
}

describe(ByteBudget.name, () => {
  it('admits large bodies only while their bytes fit in the budget', async () => {
    const budget = new ByteBudget(8 * MiB, 64 * 1024);
    const t = tracker();
    const calls = Array.from({ length: 4 }, () => run(budget, 3 * MiB, t.work()));
    await settle();
    expect(t.running()).toBe(2); // 6 MiB held; a third would make 9
    expect(budget.heldBytes).toBe(6 * MiB);
    expect(budget.waiting).toBe(2);
    for (let i = 0; i < 4; i++) {
      t.finishOne();
      await settle();
    }
    await expect(Promise.all(calls)).resolves.toEqual(['done', 'done', 'done', 'done']);
    expect(t.peak()).toBe(2);
    expect(budget.heldBytes).toBe(0);
    expect(budget.waiting).toBe(0);
  });

  it('never makes a small body wait, even behind a queue of large ones', async () => {
    const budget = new ByteBudget(8 * MiB, 64 * 1024);
    const t = tracker();
    const large = [run(budget, 5 * MiB, t.work()), run(budget, 5 * MiB, t.work())];
    await settle();
    expect(budget.waiting).toBe(1);
    let smallDone = false;
    const small = run(budget, 64 * 1024, async () => {
      smallDone = true;
      return 'small';
    });
    await expect(small).resolves.toBe('small');
    expect(smallDone).toBe(true);
    expect(budget.heldBytes).toBe(5 * MiB); // small bodies are not counted
    t.finishOne();
    await settle();
    t.finishOne();
    await Promise.all(large);
  });

  it('runs a body larger than the budget alone, once nothing else holds it', async () => {
    const budget = new ByteBudget(4 * MiB, 1024);
    const t = tracker();
    const first = run(budget, 2 * MiB, t.work());
    const huge = run(budget, 10 * MiB, t.work());
    const after = run(budget, 2 * MiB, t.work());
    await settle();
    expect(t.running()).toBe(1); // the huge one waits for the first
    t.finishOne();
    await settle();
    expect(t.running()).toBe(1); // the huge one alone; the one after it waits (first come, first served)
    expect(budget.heldBytes).toBe(10 * MiB);
    t.finishOne();
    await settle();
    expect(t.running()).toBe(1);
    t.finishOne();
    await expect(Promise.all([first, huge, after])).resolves.toEqual(['done', 'done', 'done']);
    expect(budget.heldBytes).toBe(0);
  });

  it('admits a body larger than the budget at once when nothing is held', async () => {
    const budget = new ByteBudget(1 * MiB, 0);
    await expect(run(budget, 5 * MiB, () => 'alone')).resolves.toBe('alone');
    expect(budget.heldBytes).toBe(0);
  });

  it('keeps arrival order: a large body at the head is not overtaken by smaller ones', async () => {
    const budget = new ByteBudget(8 * MiB, 64 * 1024);
    const order: string[] = [];
    const t = tracker();
    const holder = run(budget, 6 * MiB, t.work());
    const big = run(budget, 5 * MiB, async () => void order.push('big'));
    const medium = run(budget, 1 * MiB, async () => void order.push('medium')); // would fit now, but comes later
    await settle();
    expect(order).toEqual([]);
    t.finishOne();
    await Promise.all([holder, big, medium]);
    expect(order).toEqual(['big', 'medium']);
  });

  it('releases on a rejection and on a synchronous throw, and the next call proceeds', async () => {
    const budget = new ByteBudget(4 * MiB, 0);
    const t = tracker();
    const failing = run(budget, 3 * MiB, t.work(true));
    const next = run(budget, 3 * MiB, async () => 'next');
    await settle();
    expect(budget.waiting).toBe(1);
    t.finishOne();
    await expect(failing).rejects.toThrow('work failed');
    await expect(next).resolves.toBe('next');

    await expect(
      run(budget, 3 * MiB, () => {
        throw new Error('thrown');
      }),
    ).rejects.toThrow('thrown');
    expect(budget.heldBytes).toBe(0);
    await expect(run(budget, 4 * MiB, () => 'still works')).resolves.toBe('still works');
  });

  it('ignores a second release of the same admission', async () => {
    const budget = new ByteBudget(4 * MiB, 0);
    const release = await budget.acquire(3 * MiB);
    const other = await budget.acquire(1 * MiB);
    release();
    release();
    expect(budget.heldBytes).toBe(1 * MiB);
    other();
    expect(budget.heldBytes).toBe(0);
  });

  it('does not deadlock under many calls of mixed sizes, some failing', async () => {
    const budget = new ByteBudget(8 * MiB, 64 * 1024);
    let running = 0;
    let overBudget = 0;
    const sizes = Array.from({ length: 200 }, (_, i) => [1024, 100 * 1024, 2 * MiB, 5 * MiB, 12 * MiB][i % 5]);
    const results = await Promise.allSettled(
      sizes.map((bytes, i) =>
        run(budget, bytes, async () => {
          running++;
          // Within the budget, or a larger body alone.
          if (budget.heldBytes > 8 * MiB && budget.heldBytes !== bytes) overBudget++;
          await new Promise((resolve) => setTimeout(resolve, i % 3));
          running--;
          if (i % 7 === 0) throw new Error(`call ${i} failed`);
          return i;
        }),
      ),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(200 - Math.ceil(200 / 7));
    expect(running).toBe(0);
    expect(budget.heldBytes).toBe(0);
    expect(budget.waiting).toBe(0);
    expect(overBudget).toBe(0);
  });

  it('admits waiting calls from a macrotask, so the event loop turns between large bodies', async () => {
    const budget = new ByteBudget(1 * MiB, 0);
    const release = await budget.acquire(1 * MiB);
    let admitted = false;
    const waiting = budget.acquire(1 * MiB).then((r) => {
      admitted = true;
      return r;
    });
    release();
    await Promise.resolve();
    await Promise.resolve();
    expect(admitted).toBe(false); // not within the releasing microtask chain
    (await waiting)();
    expect(admitted).toBe(true);
  });

  it('refuses a budget that is not positive', () => {
    expect(() => new ByteBudget(0, 0)).toThrow(RangeError);
  });
});
