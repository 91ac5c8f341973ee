import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { readKey, valueText } from './key-path.js';

// JSON.rawJSON is what intake's parser makes of a number whose digits would change; TS's lib lacks it.
const rawJson = (text: string): unknown => (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(text);

const nested = {
  status: 'running',
  tags: { status: 'ok', 'http.path': '/pay', http: { path: '/wrong' }, 'a.b': { 'c.d': 'deep' }, a: { b: { c: { d: 'no' } } } },
  alerts: [{ status: 'firing' }, { status: 'resolved' }],
  'x.y': 'dotted',
  x: { y: 'stepped' },
  empty: {},
  list: ['a', 'b'],
  '': 'empty key',
  nothing: null,
};

describe(readKey.name, () => {
  it.each([
    ['a top-level key', nested, 'status', 'running'],
    ['a dotted path into an object', nested, 'tags.status', 'ok'],
    ['a dotted path into an array', nested, 'alerts.1.status', 'resolved'],
    ['an array element itself', nested, 'list.0', 'a'],
    ['a key holding dots, at the top', nested, 'x.y', 'dotted'],
    ['a key holding dots, one level down', nested, 'tags.http.path', '/pay'],
    ['keys holding dots at two levels', nested, 'tags.a.b.c.d', 'deep'],
    ['a whole subtree', nested, 'alerts.0', { status: 'firing' }],
    ['a null value (found, holding null)', nested, 'nothing', null],
    ['the empty key', nested, '', 'empty key'],
    ['an own __proto__ key (from JSON.parse)', JSON.parse('{"__proto__": {"a": 1}}'), '__proto__.a', 1],
    ['an own constructor key', JSON.parse('{"constructor": "mine"}'), 'constructor', 'mine'],
    ['an own toString key', { toString: 'mine' }, 'toString', 'mine'],
    ['a key ending in a dot', { 'a.': 1 }, 'a.', 1],
    ['an empty segment', { a: { '': { b: 2 } } }, 'a..b', 2],
    ['a key holding dots inside an array element', { l: [{ 'k.v': 3 }] }, 'l.0.k.v', 3],
    ['keys holding dots on a path of many dots', { 'a.b': { c: { 'd.e.f.g.h.i.j': { k: 4 } } }, a: { b: 0 } }, 'a.b.c.d.e.f.g.h.i.j.k', 4],
  ])('finds %s', (_case, payload, path, value) => {
    expect(readKey(payload, path)).toEqual({ found: true, value });
  });

  it.each([
    ['an absent top-level key', nested, 'missing', 'missing'],
    ['an absent dotted path (nothing at the first step)', nested, 'nope.status', 'nope.status'],
    ['an absent nested key', nested, 'tags.nope', 'nope'],
    ['an index past the end', nested, 'alerts.2.status', '2.status'],
    ['a negative index', nested, 'list.-1', '-1'],
    ['an index with a leading zero', nested, 'list.01', '01'],
    ['an index with a sign', nested, 'list.+1', '+1'],
    ['an array length', nested, 'list.length', 'length'],
    ['a string member', nested, 'status.length', 'length'],
    ['a string character', nested, 'status.0', '0'],
    ['a member of null', nested, 'nothing.a', 'a'],
    ['a member of a number', { n: 5 }, 'n.toFixed', 'toFixed'],
    ['a member of a raw JSON number', { n: rawJson('1.50') }, 'n.rawJSON', 'rawJSON'],
    ['a member of a boolean', { b: true }, 'b.valueOf', 'valueOf'],
    ['an inherited toString', {}, 'toString', 'toString'],
    ['an inherited constructor', nested, 'constructor', 'constructor'],
    ['an inherited __proto__', nested, '__proto__', '__proto__'],
    ['an inherited member one level down', nested, 'empty.hasOwnProperty', 'hasOwnProperty'],
    ['an array method', nested, 'list.map', 'map'],
    // No backtracking: `tags.a.b` exists as a key, so the walk goes there and never tries tags → a → b.
    ['a path reachable only through a shorter prefix', nested, 'tags.a.b.c', 'c'],
    ['a key named like a dotted key, but without the key', { a: { b: 1 } }, 'a.b.c', 'c'],
    ['a path of many dots reachable only through a shorter prefix', { 'a.b.c': {}, a: { 'b.c.d.e.f.g.h.i.j': 1 } }, 'a.b.c.d.e.f.g.h.i.j', 'd.e.f.g.h.i.j'],
    ['a payload that is not an object', 'text', 'length', 'length'],
    ['a payload that is null', null, 'a', 'a'],
  ])('does not find %s', (_case, payload, path, missing) => {
    expect(readKey(payload, path)).toEqual({ found: false, missing });
  });

  it('treats a proxy that throws as not found', () => {
    const hostile = new Proxy({}, { getOwnPropertyDescriptor: () => { throw new Error('boom'); } });
    expect(readKey({ a: hostile }, 'a.b')).toEqual({ found: false, missing: 'a.b' });
  });

  it('bounds the work on a path of 499 characters against the worst payload', () => {
    // Each level holds only the first segment, so probing would try every longer prefix first
    // (about 31,000 lookups of fresh strings); the walk must stay linear instead.
    const segments = 250;
    const path = Array.from({ length: segments }, () => 'a').join('.');
    let lookups = 0;
    const count = (target: object): object =>
      new Proxy(target, {
        getOwnPropertyDescriptor: (t, key) => {
          lookups += 1;
          return Reflect.getOwnPropertyDescriptor(t, key);
        },
        ownKeys: (t) => {
          lookups += 1;
          return Reflect.ownKeys(t);
        },
      });
    let payload: object = count({ a: 'end' });
    for (let level = 1; level < segments; level += 1) payload = count({ a: payload });
    expect(readKey(payload, path)).toEqual({ found: true, value: 'end' });
    expect(lookups).toBeLessThanOrEqual(3 * segments);
  });
});

describe(valueText.name, () => {
  it.each([
    ['a string', 'running', 'running'],
    ['an empty string', '', ''],
    ['an integer', 42, '42'],
    ['a negative fraction', -1.5, '-1.5'],
    ['a 64-bit integer received as raw JSON', rawJson('12345678901234567890'), '12345678901234567890'],
    ['a trailing-zero fraction received as raw JSON', rawJson('1.50'), '1.50'],
    ['an exponent received as raw JSON', rawJson('1E+3'), '1E+3'],
    ['true', true, 'true'],
    ['false', false, 'false'],
    ['an object', { a: 1, b: 'x' }, '{"a":1,"b":"x"}'],
    ['an object holding a raw JSON number', { id: rawJson('12345678901234567890') }, '{"id":12345678901234567890}'],
    ['an array', [1, 'two', null], '[1,"two",null]'],
    ['an empty array', [], '[]'],
    ['a bigint', 12345678901234567890n, '12345678901234567890'],
  ])('prints %s', (_case, value, text) => {
    expect(valueText(value)).toBe(text);
  });

  const cyclic: { self?: unknown } = {};
  cyclic.self = cyclic;
  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a symbol', Symbol('s')],
    ['a function', () => 1],
    ['a cyclic object', cyclic],
    ['an object with a bigint inside', { n: 1n }],
  ])('has no text for %s', (_case, value) => {
    expect(valueText(value)).toBeNull();
  });

  it('has no text for nesting too deep for JSON.stringify, without throwing', () => {
    const depth = 200_000;
    const deep = JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown;
    expect(valueText(deep)).toBeNull();
  });
});

describe(`${readKey.name} properties`, () => {
  // Keys from a small alphabet so that paths often hit, dots included to exercise dotted keys.
  const key = fc.string({ unit: fc.constantFrom('a', 'b', '.', '0', '1'), maxLength: 4 });
  const flatKey = fc.oneof(
    fc.string({ unit: fc.constantFrom('a', 'b', '0', '1'), maxLength: 3 }),
    fc.constantFrom('__proto__', 'constructor', 'toString', 'length'),
  );

  /** A JSON-like tree whose object keys come from `keys` (`__proto__` becomes an own key, as from JSON.parse). */
  const tree = (keys: fc.Arbitrary<string>) =>
    fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant(null)),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.array(fc.tuple(keys, tie('node')), { maxLength: 4 }).map((entries) => Object.fromEntries(entries)),
      ),
    })).node;

  it('never throws, for any JSON value and any path', () => {
    fc.assert(
      fc.property(fc.oneof(tree(key), fc.jsonValue()), fc.oneof(key, fc.string(), fc.string({ unit: fc.constantFrom('a', '.'), maxLength: 40 })), (payload, path) => {
        const read = readKey(payload, path);
        if (!read.found) expect(path.endsWith(read.missing)).toBe(true);
        else valueText(read.value);
      }),
    );
  });

  /** The obvious walk, for keys that hold no dots: one own key (or canonical index) per segment. */
  function referenceRead(payload: unknown, segments: string[]): { found: boolean; value?: unknown } {
    let node = payload;
    for (const segment of segments) {
      if (typeof node !== 'object' || node === null) return { found: false };
      if (Array.isArray(node)) {
        if (!/^(0|[1-9][0-9]*)$/.test(segment) || Number(segment) >= node.length) return { found: false };
      } else if (!Object.hasOwn(node, segment)) {
        return { found: false };
      }
      node = (node as Record<string, unknown>)[segment];
    }
    return { found: true, value: node };
  }

  it('agrees with the obvious walk when no key holds a dot', () => {
    fc.assert(
      fc.property(tree(flatKey), fc.array(flatKey, { minLength: 1, maxLength: 12 }), (payload, segments) => {
        const expected = referenceRead(payload, segments);
        const read = readKey(payload, segments.join('.'));
        expect(read.found).toBe(expected.found);
        if (read.found) expect(read.value).toBe(expected.value);
      }),
    );
  });

  /** The rule as documented, by brute force: whole rest, else the longest existing dotted prefix, no backtracking. */
  function referenceRule(payload: unknown, path: string): { found: boolean; value?: unknown } {
    let node = payload;
    let rest = path;
    for (;;) {
      if (typeof node !== 'object' || node === null) return { found: false };
      const has = (key: string) =>
        Array.isArray(node) ? /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < node.length : Object.hasOwn(node as object, key);
      if (has(rest)) return { found: true, value: (node as Record<string, unknown>)[rest] };
      const prefixes = [...rest.matchAll(/\./g)].map((m) => rest.slice(0, m.index)).reverse();
      const step = prefixes.find(has);
      if (step === undefined) return { found: false };
      node = (node as Record<string, unknown>)[step];
      rest = rest.slice(step.length + 1);
    }
  }

  it('follows the documented rule, on long paths and keys holding dots', () => {
    // Up to 14 segments, so that levels with many dots left (where the walk scans keys) come up.
    const segment = fc.constantFrom('a', 'b', '0');
    const dottedKey = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('.'));
    fc.assert(
      fc.property(tree(fc.oneof(dottedKey, segment)), fc.array(segment, { minLength: 1, maxLength: 14 }), (payload, segments) => {
        const path = segments.join('.');
        const expected = referenceRule(payload, path);
        const read = readKey(payload, path);
        expect(read.found).toBe(expected.found);
        if (read.found) expect(read.value).toBe(expected.value);
      }),
      { numRuns: 1000 },
    );
  });

  it('follows the documented rule where many dots are left (the walk scans keys there)', () => {
    // Keys are runs of the path's own segments, so that several prefixes exist at the same level.
    const longPath = fc.array(fc.constantFrom('a', 'a', '0'), { minLength: 10, maxLength: 16 });
    fc.assert(
      fc.property(
        longPath.chain((segments) => {
          const runs = segments.flatMap((_, i) => segments.slice(i).map((__, j) => segments.slice(i, i + j + 1).join('.')));
          return fc.tuple(fc.constant(segments.join('.')), tree(fc.constantFrom(...runs)));
        }),
        ([path, payload]) => {
          const expected = referenceRule(payload, path);
          const read = readKey(payload, path);
          expect(read.found).toBe(expected.found);
          if (read.found) expect(read.value).toBe(expected.value);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('lets a key holding dots win over the steps down', () => {
    fc.assert(
      fc.property(tree(key), fc.array(flatKey, { minLength: 2, maxLength: 4 }), fc.jsonValue(), (other, segments, value) => {
        const dotted = segments.join('.');
        // The steps down exist too (segments[0] holds the rest), yet the dotted key wins.
        const payload = Object.fromEntries([
          [segments[0], Object.fromEntries([[segments.slice(1).join('.'), other]])],
          [dotted, value],
        ]);
        expect(readKey(payload, dotted)).toEqual({ found: true, value });
      }),
    );
  });
});
