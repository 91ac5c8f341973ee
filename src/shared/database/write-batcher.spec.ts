import { describe, expect, it } from '@jest/globals';
import { WriteBatcher, type TransactionRunner } from './write-batcher.js';

/** A fake database: records which jobs shared a transaction, commits after a tick, rolls back on a throw. */
function fakeDatabase() {
  const transactions: string[][] = [];
  const committed: string[] = [];
  const transaction: TransactionRunner<string[]> = async (work) => {
    const writes: string[] = [];
    transactions.push(writes);
    const result = await work(writes);
    await new Promise((r) => setTimeout(r, 5));
    committed.push(...writes);
    return result;
  };
  return { transactions, committed, transaction };
}

const write = (name: string) => async (tx: string[]) => {
  tx.push(name);
  return `${name} done`;
};

describe(WriteBatcher.name, () => {
  it('starts a lone job at once, in a transaction of its own', async () => {
    const db = fakeDatabase();
    const batcher = new WriteBatcher(db.transaction, 1);
    await expect(batcher.submit(write('a'))).resolves.toBe('a done');
    expect(db.transactions).toEqual([['a']]);
  });

  it('runs jobs that arrive while a transaction is busy together, answering each after the commit', async () => {
    const db = fakeDatabase();
    const batcher = new WriteBatcher(db.transaction, 1);
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((n) => batcher.submit(write(n)).then((v) => [v, [...db.committed]] as const)));
    expect(db.transactions).toEqual([['a'], ['b', 'c', 'd']]);
    for (const [value, committedThen] of answers) expect(committedThen).toContain(value.split(' ')[0]);
  });

  it('keeps at most maxConcurrent transactions and maxBatch jobs per transaction', async () => {
    const db = fakeDatabase();
    const batcher = new WriteBatcher(db.transaction, 2, 3);
    await Promise.all(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((n) => batcher.submit(write(n))));
    expect(db.transactions).toEqual([['a'], ['b'], ['c', 'd', 'e'], ['f', 'g', 'h']]);
  });

  it('isolates a failing job: the others of its batch commit, it alone fails', async () => {
    const db = fakeDatabase();
    const batcher = new WriteBatcher(db.transaction, 1);
    const failing = async (tx: string[]) => {
      tx.push('bad');
      throw new Error('bad write');
    };
    const results = await Promise.allSettled([batcher.submit(write('first')), batcher.submit(write('x')), batcher.submit(failing), batcher.submit(write('y'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(db.committed.sort()).toEqual(['first', 'x', 'y']);
  });
});
