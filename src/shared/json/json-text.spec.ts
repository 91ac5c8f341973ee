import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { mayNotRoundTrip, parseJsonKeepingEveryNumber, parseJsonPreservingNumbers } from './json-text.js';

// Node 24's raw JSON API; TypeScript's lib does not declare it.
const { isRawJSON, rawJSON } = JSON as unknown as {
  isRawJSON(value: unknown): value is { rawJSON: string };
  rawJSON(text: string): unknown;
};

/** Digit runs biased to 0, so trailing zeros, leading fraction zeros and round numbers come up often. */
const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom('0', '0', '0', '1', '5', '9'), minLength, maxLength });

/** Any JSON number token: `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`, plus the risky kinds on purpose. */
const sign = fc.constantFrom('', '-');
const numberToken: fc.Arbitrary<string> = fc.oneof(
  fc
    .tuple(
      sign,
      fc.oneof(fc.constant('0'), fc.tuple(fc.constantFrom('1', '2', '5', '9'), digits(0, 25)).map(([d, rest]) => d + rest)),
      fc.oneof(fc.constant(''), digits(1, 22).map((f) => `.${f}`)),
      fc.oneof(fc.constant(''), fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3)).map((parts) => parts.join(''))),
    )
    .map((parts) => parts.join('')),
  // Big integers around and past 2^53 and 1e21.
  fc.tuple(sign, fc.bigInt({ min: 2n ** 53n - 5n, max: 10n ** 23n })).map(([s, n]) => `${s}${n}`),
  // Fractions ending in zero, and tiny fractions just above and below 1e-6.
  fc.tuple(sign, fc.nat(), digits(0, 3)).map(([s, n, d]) => `${s}${n}.${d}0`),
  fc.tuple(sign, fc.integer({ min: 4, max: 8 }), fc.constantFrom('1', '25', '999')).map(([s, zeros, d]) => `${s}0.${'0'.repeat(zeros)}${d}`),
  // Numbers as JavaScript prints them: the common case, which must take the fast path when it can.
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.integer().map(String),
);

/** A JSON text with whitespace between tokens, and the same text with that whitespace removed. */
interface Text {
  text: string;
  compact: string;
}
const space = fc.constantFrom('', ' ', '\n', ' \t', '\r\n');
// JSON.stringify prints an object's integer-like keys first, so leave them out to keep key order.
const objectKey = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '1.50', 'id')).filter((k) => !/^\d+$/.test(k));
const jsonText: fc.Arbitrary<Text> = fc.letrec<{ value: Text }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberToken.map((t) => ({ text: t, compact: t })),
    fc.oneof(fc.string({ unit: 'binary' }), numberToken).map((s) => ({ text: JSON.stringify(s), compact: JSON.stringify(s) })),
    fc.constantFrom('true', 'false', 'null').map((t) => ({ text: t, compact: t })),
    fc.array(fc.tuple(space, tie('value'), space), { maxLength: 4 }).map((items) => ({
      text: `[${items.map(([a, v, b]) => a + v.text + b).join(',')}]`,
      compact: `[${items.map(([, v]) => v.compact).join(',')}]`,
    })),
    fc
      .uniqueArray(fc.tuple(objectKey, space, tie('value')), { selector: ([k]) => k, maxLength: 4 })
      .map((entries) => ({
        text: `{${entries.map(([k, s, v]) => `${s}${JSON.stringify(k)}${s}:${s}${v.text}${s}`).join(',')}}`,
        compact: `{${entries.map(([k, , v]) => `${JSON.stringify(k)}:${v.compact}`).join(',')}}`,
      })),
  ),
})).value;

describe(parseJsonPreservingNumbers.name, () => {
  it.each([
    ['a 64-bit integer', '12345678901234567890'],
    ['an integer above 2^53', '9007199254740993'],
    ['a trailing-zero fraction', '1.50'],
    ['a whole fraction', '1.0'],
    ['an exponent', '1e3'],
    ['an upper-case signed exponent', '1E+2'],
    ['an exponent that overflows', '1e400'],
    ['negative zero', '-0'],
    ['negative zero with a fraction', '-0.0'],
    ['a tiny fraction', '0.0000001'],
    ['a long fraction', '0.12345678901234567'],
    ['a huge integer', '100000000000000000000000'],
  ])('keeps %s as received', (_case, token) => {
    const parsed = parseJsonPreservingNumbers(`{"n": ${token}}`) as { n: unknown };
    expect(isRawJSON(parsed.n)).toBe(true);
    expect((parsed.n as { rawJSON: string }).rawJSON).toBe(token);
    expect(JSON.stringify(parsed)).toBe(`{"n":${token}}`);
  });

  it.each([
    ['an integer', '42', 42],
    ['a fraction', '-1.5', -1.5],
    ['zero', '0', 0],
    ['15 digits', '123456789012345', 123456789012345],
    ['the smallest plain fraction', '0.000001', 0.000001],
  ])('keeps %s a plain number', (_case, token, value) => {
    expect(parseJsonPreservingNumbers(`[${token}]`)).toEqual([value]);
  });

  it('keeps numbers that round-trip plain, beside one that does not', () => {
    const parsed = parseJsonPreservingNumbers('{"id": 12345678901234567890, "ok": 1.5, "list": [2, 1.50]}') as Record<string, unknown>;
    expect(isRawJSON(parsed.id)).toBe(true);
    expect(parsed.ok).toBe(1.5);
    expect(parsed.list).toEqual([2, rawJSON('1.50')]);
  });

  it('makes __proto__ an own key, as JSON.parse does', () => {
    const parsed = parseJsonPreservingNumbers('{"__proto__": 1.50, "constructor": 1}') as object;
    expect(Object.hasOwn(parsed, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(JSON.stringify(parsed)).toBe('{"__proto__":1.50,"constructor":1}');
  });

  it.each(['', '{', '{"a": 1.50', '[1e]', '01', 'NaN', '{"a": 1,}', '[1.]', '"\u0001"'])('throws a SyntaxError for %j', (text) => {
    expect(() => parseJsonPreservingNumbers(text)).toThrow(SyntaxError);
    expect(() => parseJsonKeepingEveryNumber(text)).toThrow(SyntaxError);
  });

  it('accepts nesting too deep for the reviver, as JSON.parse does', () => {
    const depth = 200_000;
    const text = `${'['.repeat(depth)}1.50${']'.repeat(depth)}`;
    expect(Array.isArray(parseJsonPreservingNumbers(text))).toBe(true);
  });

  it('prints every number token back as received', () => {
    fc.assert(
      fc.property(jsonText, ({ text, compact }) => {
        expect(JSON.stringify(parseJsonPreservingNumbers(text))).toBe(compact);
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with the slow path (always the reviver)', () => {
    fc.assert(
      fc.property(fc.oneof(jsonText.map((t) => t.text), fc.json()), (text) => {
        expect(parseJsonPreservingNumbers(text)).toEqual(parseJsonKeepingEveryNumber(text));
      }),
      { numRuns: 500 },
    );
  });

  it('equals JSON.parse when every number prints back as itself', () => {
    // fc.json() prints numbers as JavaScript does, so no raw JSON value may appear.
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(parseJsonPreservingNumbers(text)).toEqual(JSON.parse(text));
      }),
    );
  });
});

describe(mayNotRoundTrip.name, () => {
  it('matches every number token that does not print back as itself', () => {
    fc.assert(
      fc.property(numberToken, (token) => {
        if (String(JSON.parse(token)) !== token) expect(mayNotRoundTrip(token)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it.each(['0', '42', '-1.5', '0.25', '123456789012345', '1234567890.123456', '0.000001', '-0.5', '1000', '"text"', 'true', '1732262400000000', '9007199254740992', '-9007199254740992'])(
    'lets %s take the fast path',
    (text) => {
      expect(mayNotRoundTrip(text)).toBe(false);
    },
  );

  it.each(['9007199254740993', '12345678901234567', '1.0000000000000001', '1e3', '1.50', '-0', '0.0000001'])('sends %s to the slow path', (text) => {
    expect(mayNotRoundTrip(text)).toBe(true);
  });

  it('agrees with JSON.parse on every 16-digit integer around 2^53', () => {
    for (let delta = -1000; delta <= 1000; delta++) {
      const token = (9007199254740992n + BigInt(delta)).toString();
      if (String(JSON.parse(token)) !== token) expect(mayNotRoundTrip(token)).toBe(true);
    }
  });
});

describe('mayNotRoundTrip inside strings', () => {
  it('is true exactly when the slow path keeps some source text', () => {
    const holdsRaw = (value: unknown): boolean =>
      isRawJSON(value) || (typeof value === 'object' && value !== null && Object.values(value).some(holdsRaw));
    fc.assert(
      fc.property(jsonText, ({ text }) => {
        expect(mayNotRoundTrip(text)).toBe(holdsRaw(parseJsonKeepingEveryNumber(text)));
      }),
      { numRuns: 3000 },
    );
  });

  it.each([
    '{"id":"6b221d5bc9e6496c","traceId":"5af7183fb1d4cf5f"}',
    '{"traceId":"3e5f0a1b2c3d4e5f","path":"/1e5/1.50/-0"}',
    '{"s":"a\\"1e3"}',
    '{"s":"\\\\","n":12}',
    '{"at":"2026-01-02T00:00:00.000Z","version":"v1.0"}',
    '{"timestamp":1732262400000000,"duration":1200}',
  ])('keeps %s on the fast path', (text) => {
    expect(mayNotRoundTrip(text)).toBe(false);
  });

  it.each(['{"a":1e3}', '{"a":[-0]}', '{"a": 1.50}', '{"a":9007199254740993}', '{"a":-12345678901234567}', '["a\\\\",1e3]'])('sends %s to the slow path', (text) => {
    expect(mayNotRoundTrip(text)).toBe(true);
  });
});
