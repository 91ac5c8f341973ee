import { describe, expect, it } from '@jest/globals';
import { TtlCache } from './ttl-cache.js';

describe(TtlCache.name, () => {
  it('keeps an entry for its time to live', () => {
    const cache = new TtlCache<string, number>(1000);
    cache.set('a', 1, 0);
    expect(cache.get('a', 999)).toBe(1);
    expect(cache.get('a', 1000)).toBeUndefined();
  });

  it('evicts by key and by value', () => {
    const cache = new TtlCache<string, { id: string }>(1000);
    cache.set('a', { id: 'x' }, 0);
    cache.set('b', { id: 'y' }, 0);
    cache.deleteWhere((v) => v.id === 'x');
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('b', 1)).toEqual({ id: 'y' });
    cache.delete('b');
    expect(cache.get('b', 1)).toBeUndefined();
  });

  it('holds at most its size, dropping the oldest', () => {
    const cache = new TtlCache<string, number>(1000, 2);
    cache.set('a', 1, 0);
    cache.set('b', 2, 0);
    cache.set('c', 3, 0);
    expect([cache.get('a', 1), cache.get('b', 1), cache.get('c', 1)]).toEqual([undefined, 2, 3]);
  });
});
