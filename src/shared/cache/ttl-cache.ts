/**
 * A small in-process read-through cache: entries live `ttlMs` from the moment the load that read
 * them began, at most `maxEntries` (the oldest goes first). Changes made through this instance evict
 * entries at once; `ttlMs` bounds how long a change made through another instance can go unseen.
 *
 * Under load it never stampedes: concurrent callers that miss share one load, and from
 * `refreshAfterMs` of an entry's life on, callers still get it at once while a single load replaces
 * it in the background, so a busy key is reloaded without any call waiting for the database.
 */
export interface TtlCacheOptions {
  maxEntries?: number;
  /** From this age on an entry is answered and reloaded in the background; off when unset. */
  refreshAfterMs?: number;
}

/** Loads a key's value; `undefined` (e.g. "no such token") is answered, not cached, and evicts the key. */
export type Loader<V> = () => Promise<V | undefined>;

interface Entry<V> {
  value: V;
  loadedAt: number;
}

export class TtlCache<K, V> {
  private readonly entries = new Map<K, Entry<V>>();
  /** Loads in flight; one stores its value only if it is still its key's load when it ends. */
  private readonly loads = new Map<K, Promise<V | undefined>>();
  private readonly maxEntries: number;
  private readonly refreshAfterMs: number;

  constructor(
    private readonly ttlMs: number,
    options: TtlCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.refreshAfterMs = Math.min(options.refreshAfterMs ?? ttlMs, ttlMs);
  }

  /**
   * The key's value: the cached one while it is younger than the TTL, else the result of `load`,
   * shared with every caller that asks meanwhile. A failed load rejects those callers and caches
   * nothing; a failed background refresh is dropped (the entry serves on until its TTL).
   */
  getOrLoad(key: K, load: () => Promise<V>, now?: number): Promise<V>;
  getOrLoad(key: K, load: Loader<V>, now?: number): Promise<V | undefined>;
  getOrLoad(key: K, load: Loader<V>, now = Date.now()): Promise<V | undefined> {
    const entry = this.entries.get(key);
    if (entry && now - entry.loadedAt < this.ttlMs) {
      if (now - entry.loadedAt >= this.refreshAfterMs && !this.loads.has(key)) {
        this.start(key, load, now).catch(() => undefined);
      }
      return Promise.resolve(entry.value);
    }
    if (entry) this.entries.delete(key);
    return this.loads.get(key) ?? this.start(key, load, now);
  }

  /** Forgets the key, and any load of it in flight (which may have read the value before a change). */
  delete(key: K): void {
    this.entries.delete(key);
    this.loads.delete(key);
  }

  /** Evicts every entry whose value matches, and every load in flight (their values are not known yet). */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of this.entries) if (matches(entry.value)) this.entries.delete(key);
    this.loads.clear();
  }

  private start(key: K, load: Loader<V>, startedAt: number): Promise<V | undefined> {
    // `new Promise` turns a loader that throws at once into a rejection like any other.
    const current: Promise<V | undefined> = new Promise<V | undefined>((resolve) => resolve(load())).then(
      (value) => {
        if (this.loads.get(key) !== current) return value;
        this.loads.delete(key);
        // Nothing there any more (a token revoked through another instance): forget the old entry.
        if (value === undefined) this.entries.delete(key);
        else this.store(key, value, startedAt);
        return value;
      },
      (error: unknown) => {
        if (this.loads.get(key) === current) this.loads.delete(key);
        throw error;
      },
    );
    this.loads.set(key, current);
    return current;
  }

  private store(key: K, value: V, loadedAt: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, { value, loadedAt });
  }
}
