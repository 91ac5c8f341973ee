import { describe, expect, it } from '@jest/globals';
import { WriteBatcher, type BatchRunner } from './write-batcher.js';

/** A fake database: records which jobs shared a transaction, commits after a tick, rolls back on a throw. */
function fakeDatabase() {
  const transactions: string[][] = [];
  const committed: string[] = [];
  const run: BatchRunner<string, string> = async (jobs) => {
    transactions.push(jobs);
    if (jobs.includes('bad')) throw new Error('bad write');
    await new Promise((r) => setTimeout(r, 5));
    committed.push(...jobs);
    return jobs.map((job) => `${job} done`);
  };
  return { transactions, committed, run };
}

describe(WriteBatcher.name, () => {
  it('starts a lone job at once, in a transaction of its own', async () => {
    const db = fakeDatabase();
    const batcher = new WriteBatcher(db.run, 1);
    await expect(batcher.submit('a')).resolves.toBe('a done');
    expect(db.transactions).toEqual([['a']]);
  });

  it('runs jobs that arrive while a transaction is busy together, answering each after the commit', async () => {
    const db = fakeDatabase();
    const batcher = new WriteBatcher(db.run, 1);
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map((n) => batcher.submit(n).then((v) => [v, [...db.committed]] as const)));
    expect(db.transactions).toEqual([['a'], ['b', 'c', 'd']]);
    for (const [value, committedThen] of answers) expect(committedThen).toContain(value.split(' ')[0]);
    expect(answers.map(([value]) => value)).toEqual(['a done', 'b done', 'c done', 'd done']);
  });

  it('keeps at most maxConcurrent transactions and maxBatch jobs per transaction', async () => {
    const db = fakeDatabase();
    const batcher = new WriteBatcher(db.run, 2, 3);
    await Promise.all(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((n) => batcher.submit(n)));
    expect(db.transactions).toEqual([['a'], ['b'], ['c', 'd', 'e'], ['f', 'g', 'h']]);
  });

  it('isolates a failing job: the others of its batch commit, it alone fails', async () => {
    const db = fakeDatabase();
    const batcher = new WriteBatcher(db.run, 1);
    const results = await Promise.allSettled(['first', 'x', 'bad', 'y'].map((n) => batcher.submit(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual(['first done', 'x done', 'bad write', 'y done']);
    expect(db.committed.sort()).toEqual(['first', 'x', 'y']);
  });
});
