import { describe, expect, it } from '@jest/globals';
import { TtlCache } from './ttl-cache.js';

/** A load the test finishes by hand, counting how often the cache started one. */
function manualLoader<V>() {
  const calls: Array<{ resolve: (v: V | undefined) => void; reject: (e: unknown) => void }> = [];
  const load = () => new Promise<V | undefined>((resolve, reject) => calls.push({ resolve, reject }));
  return { load, calls };
}

const settle = () => new Promise((done) => setImmediate(done));

/** A cache whose key 'a' holds `value`, loaded at time 0 through a manual loader (calls[0]). */
async function cacheHolding(value: string, options: { refreshAfterMs?: number } = {}) {
  const cache = new TtlCache<string, string>(1000, options);
  const { load, calls } = manualLoader<string>();
  const first = cache.getOrLoad('a', load, 0);
  calls[0].resolve(value);
  await first;
  return { cache, load, calls };
}

describe(TtlCache.name, () => {
  it('keeps a value for its time to live, counted from when its load began', async () => {
    const cache = new TtlCache<string, number>(1000);
    let loads = 0;
    const load = async () => ++loads;
    expect(await cache.getOrLoad('a', load, 0)).toBe(1);
    expect(await cache.getOrLoad('a', load, 999)).toBe(1);
    expect(await cache.getOrLoad('a', load, 1000)).toBe(2);
    expect(loads).toBe(2);
  });

  it('runs one load for all the callers that miss at once', async () => {
    const cache = new TtlCache<string, string>(1000);
    const { load, calls } = manualLoader<string>();
    const answers = Promise.all(Array.from({ length: 50 }, () => cache.getOrLoad('a', load, 0)));
    expect(calls).toHaveLength(1);
    calls[0].resolve('v');
    expect(await answers).toEqual(Array(50).fill('v'));
    expect(await cache.getOrLoad('a', load, 1)).toBe('v');
    expect(calls).toHaveLength(1);
  });

  it('answers an ageing entry at once and reloads it once in the background', async () => {
    const { cache, load, calls } = await cacheHolding('old', { refreshAfterMs: 750 });
    // Before refreshAfterMs: cached, no load.
    expect(await cache.getOrLoad('a', load, 749)).toBe('old');
    expect(calls).toHaveLength(1);
    // From refreshAfterMs: still the old value at once, and exactly one background load.
    expect(await cache.getOrLoad('a', load, 750)).toBe('old');
    expect(await cache.getOrLoad('a', load, 800)).toBe('old');
    expect(calls).toHaveLength(2);
    calls[1].resolve('new');
    await settle();
    // The refreshed value counts its age from when its load began (750): fresh until 1500.
    expect(await cache.getOrLoad('a', load, 1499)).toBe('new');
    expect(calls).toHaveLength(2);
    expect(await cache.getOrLoad('a', load, 1500)).toBe('new');
    expect(calls).toHaveLength(3);
  });

  it('never answers an entry past its TTL, even while a refresh is in flight', async () => {
    const { cache, load, calls } = await cacheHolding('old', { refreshAfterMs: 500 });
    expect(await cache.getOrLoad('a', load, 600)).toBe('old');
    expect(calls).toHaveLength(2);
    // Expired: the caller waits, and joins the refresh already in flight.
    const late = cache.getOrLoad('a', load, 1000);
    expect(calls).toHaveLength(2);
    calls[1].resolve('new');
    expect(await late).toBe('new');
  });

  it('does not keep what a load read before the key was evicted', async () => {
    for (const evict of [(c: TtlCache<string, { id: string }>) => c.delete('a'), (c: TtlCache<string, { id: string }>) => c.deleteWhere((v) => v.id === 'x')]) {
      const cache = new TtlCache<string, { id: string }>(1000);
      const { load, calls } = manualLoader<{ id: string }>();
      const before = cache.getOrLoad('a', load, 0);
      evict(cache);
      // A caller after the change does not join the load that began before it.
      const after = cache.getOrLoad('a', load, 1);
      expect(calls).toHaveLength(2);
      calls[0].resolve({ id: 'x', v: 'stale' } as { id: string });
      calls[1].resolve({ id: 'x', v: 'fresh' } as { id: string });
      expect(await before).toEqual({ id: 'x', v: 'stale' });
      expect(await after).toEqual({ id: 'x', v: 'fresh' });
      expect(await cache.getOrLoad('a', load, 2)).toEqual({ id: 'x', v: 'fresh' });
      expect(calls).toHaveLength(2);
    }
  });

  it('evicts by key and by value', async () => {
    const cache = new TtlCache<string, { id: string }>(1000);
    let loads = 0;
    const load = (id: string) => async () => ({ id, n: ++loads });
    await cache.getOrLoad('a', load('x'), 0);
    await cache.getOrLoad('b', load('y'), 0);
    cache.deleteWhere((v) => v.id === 'x');
    expect(await cache.getOrLoad('a', load('x'), 1)).toEqual({ id: 'x', n: 3 });
    expect(await cache.getOrLoad('b', load('y'), 1)).toEqual({ id: 'y', n: 2 });
    cache.delete('b');
    expect(await cache.getOrLoad('b', load('y'), 1)).toEqual({ id: 'y', n: 4 });
  });

  it('rejects every waiter of a failed load, caches nothing and tries again on the next call', async () => {
    const cache = new TtlCache<string, string>(1000);
    const { load, calls } = manualLoader<string>();
    const waiters = [cache.getOrLoad('a', load, 0), cache.getOrLoad('a', load, 0)];
    calls[0].reject(new Error('database down'));
    for (const w of waiters) await expect(w).rejects.toThrow('database down');
    const retry = cache.getOrLoad('a', load, 1);
    expect(calls).toHaveLength(2);
    calls[1].resolve('v');
    expect(await retry).toBe('v');
  });

  it('turns a loader that throws at once into a rejection', async () => {
    const cache = new TtlCache<string, string>(1000);
    const load = () => {
      throw new Error('bad key');
    };
    await expect(cache.getOrLoad('a', load, 0)).rejects.toThrow('bad key');
  });

  it('serves on through a failed background refresh until the TTL', async () => {
    const { cache, load, calls } = await cacheHolding('old', { refreshAfterMs: 500 });
    expect(await cache.getOrLoad('a', load, 500)).toBe('old');
    calls[1].reject(new Error('database down'));
    await settle();
    // The next caller past refreshAfterMs starts another refresh.
    expect(await cache.getOrLoad('a', load, 600)).toBe('old');
    expect(calls).toHaveLength(3);
  });

  it('answers undefined without caching it', async () => {
    const cache = new TtlCache<string, string>(1000);
    let loads = 0;
    const load = async () => {
      loads++;
      return undefined;
    };
    expect(await cache.getOrLoad('a', load, 0)).toBeUndefined();
    expect(await cache.getOrLoad('a', load, 1)).toBeUndefined();
    expect(loads).toBe(2);
  });

  it('forgets an entry when its background refresh finds nothing', async () => {
    const { cache, load, calls } = await cacheHolding('token', { refreshAfterMs: 500 });
    expect(await cache.getOrLoad('a', load, 500)).toBe('token');
    calls[1].resolve(undefined);
    await settle();
    // Revoked meanwhile: the next caller waits for a load instead of getting the old entry.
    const next = cache.getOrLoad('a', load, 501);
    expect(calls).toHaveLength(3);
    calls[2].resolve(undefined);
    expect(await next).toBeUndefined();
  });

  it('holds at most its size, dropping the oldest', async () => {
    const cache = new TtlCache<string, number>(1000, { maxEntries: 2 });
    let loads = 0;
    const load = async () => ++loads;
    for (const key of ['a', 'b', 'c']) await cache.getOrLoad(key, load, 0);
    expect([await cache.getOrLoad('b', load, 1), await cache.getOrLoad('c', load, 1)]).toEqual([2, 3]);
    expect(await cache.getOrLoad('a', load, 1)).toBe(4);
  });
});
