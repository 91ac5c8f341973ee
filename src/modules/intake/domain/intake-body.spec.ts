import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { parseJsonPreservingNumbers } from '../../../shared/json/json-text.js';
import { MAX_DEPTH, nestingDepth, parseArrayInGroups, parseIntakeBody, parseIntakeBodyInSteps } from './intake-body.js';

/** Compares parsed values by their JSON, so numbers kept as raw text compare by their digits. */
const asJson = (value: unknown) => JSON.stringify(value);

// Strings full of the characters the scan must not take for structure.
const trickyString = fc.string({ unit: fc.constantFrom('a', ',', '[', ']', '{', '}', '"', '\\', ':', ' ', 'é', '😀', '\n', '\u2028') });
// Number tokens, those that do not print back as themselves (kept as raw text) included.
const number = fc.oneof(
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc.constantFrom('12345678901234567890', '1.50', '1e3', '-0', '0.0000001', '9007199254740993'),
);
const jsonText = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    trickyString.map((s) => JSON.stringify(s)),
    number,
    fc.constantFrom('true', 'false', 'null'),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc.array(fc.tuple(trickyString, tie('value')), { maxLength: 4 }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).value as fc.Arbitrary<string>;
const space = fc.constantFrom('', ' ', '\n', '\t ', '\r\n  ');
/** A top-level array of any values, with any JSON white space around its parts. */
const arrayText = fc
  .tuple(fc.array(fc.tuple(space, jsonText, space), { maxLength: 12 }), space, space)
  .map(([items, lead, trail]) => `${lead}[${items.map(([a, v, b]) => `${a}${v}${b}`).join(',')}]${trail}`);

describe(parseArrayInGroups.name, () => {
  it('parses any array as the whole text would, whatever the group size, and leaves the bytes as they were', () => {
    fc.assert(
      fc.property(arrayText, fc.integer({ min: 0, max: 40 }), (text, groupBytes) => {
        const raw = Buffer.from(text);
        const copy = Buffer.from(raw);
        const grouped = parseArrayInGroups(raw, 0, groupBytes);
        expect(grouped).not.toBeNull();
        expect(asJson(grouped)).toBe(asJson(parseJsonPreservingNumbers(text)));
        expect(raw.equals(copy)).toBe(true);
      }),
    );
  });

  it('never accepts what JSON.parse refuses, nor parses anything differently', () => {
    const noise = fc.string({ unit: fc.constantFrom('[', ']', '{', '}', ',', '"', '\\', ':', '1', 'a', ' ', 'n', 'u', 'l'), maxLength: 30 });
    // Valid arrays with a few characters deleted, replaced or inserted, and plain noise.
    const damaged = fc.oneof(
      fc.tuple(arrayText, fc.nat(), fc.nat({ max: 3 }), noise).map(([text, at, cut, insert]) => {
        const i = at % (text.length + 1);
        return text.slice(0, i) + insert.slice(0, 2) + text.slice(i + cut);
      }),
      noise.map((s) => `[${s}`),
    );
    fc.assert(
      fc.property(damaged, fc.integer({ min: 0, max: 20 }), (text, groupBytes) => {
        const raw = Buffer.from(text);
        const copy = Buffer.from(raw);
        let grouped: unknown[] | null;
        try {
          grouped = parseArrayInGroups(raw, 0, groupBytes);
        } catch (error) {
          expect((error as { code?: string }).code).toBe('BODY_TOO_DEEP');
          return;
        }
        // Against the text the bytes hold (a cut through a surrogate pair became U+FFFD in them).
        if (grouped !== null) expect(asJson(grouped)).toBe(asJson(parseJsonPreservingNumbers(copy.toString('utf8'))));
        expect(raw.equals(copy)).toBe(true);
      }),
    );
  });

  it.each([
    ['a trailing comma at a cut', '[1,2,]'],
    ['a missing element between cuts', '[1,,2]'],
    ['a leading comma', '[,1]'],
    ['an object', '{"a":[1,2]}'],
    ['something after the array', '[1,2] [3]'],
    ['an unclosed array', '[1,2'],
    ['a mismatched close', '[1,{"a":2]]'],
    ['an unterminated string', '[1,"a,2]'],
  ])('returns null for %s, however small the groups', (_, text) => {
    for (const groupBytes of [0, 1, 2, 100]) expect(parseArrayInGroups(Buffer.from(text), 0, groupBytes)).toBeNull();
  });

  it('parses empty arrays and keeps 64-bit ids in every group', () => {
    expect(parseArrayInGroups(Buffer.from(' [ ] '), 0, 0)).toEqual([]);
    const text = `[${Array.from({ length: 50 }, (_, i) => `{"id":1234567890123456789${i % 10},"n":${i}}`).join(',')}]`;
    const grouped = parseArrayInGroups(Buffer.from(text), 0, 30)!;
    expect(grouped).toHaveLength(50);
    expect(asJson(grouped)).toBe(text);
  });

  it('counts nesting as nestingDepth does', () => {
    const deep = `[${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}]`;
    expect(nestingDepth(deep, MAX_DEPTH)).toBeGreaterThan(MAX_DEPTH);
    expect(() => parseArrayInGroups(Buffer.from(deep), 0, 0)).toThrow(expect.objectContaining({ code: 'BODY_TOO_DEEP' }));
    const deepest = `[${'['.repeat(MAX_DEPTH - 1)}${']'.repeat(MAX_DEPTH - 1)}]`;
    expect(parseArrayInGroups(Buffer.from(deepest), 0, 0)).toHaveLength(1);
  });
});

describe(parseIntakeBody.name, () => {
  const span = (i: number) => `{"traceId":"trace-${i}","name":"checkout, \\"quoted\\" [x] {y}","timestamp":1732262400000000,"id":12345678901234567890,"status":"queued"}`;
  const big = `[${Array.from({ length: 12_000 }, (_, i) => span(i)).join(',')}]`; // ~1.4 MB
  const withBom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);

  it('gives the same payloads with or without the text, a byte-order mark or not', () => {
    const reported: [string, boolean][] = [];
    const withText = parseIntakeBody(Buffer.from(big), (text, isJson) => reported.push([text, isJson]));
    expect(reported.map(([text, isJson]) => [text.length, isJson])).toEqual([
      [big.length, false],
      [big.length, true],
    ]);
    expect(withText).toHaveLength(12_000);
    expect(asJson(parseIntakeBody(Buffer.from(big), null))).toBe(asJson(withText));
    expect(asJson(parseIntakeBody(withBom(big), null))).toBe(asJson(withText));
    expect(asJson(withText)).toBe(big); // every digit of the 64-bit ids kept
  });

  it('answers a large bad body with the same error whether the text is needed or not', () => {
    const bad: Array<[string, Buffer]> = [
      ['JSON_INVALID', Buffer.from(`${big.slice(0, -1)},]`)],
      ['BODY_NOT_OBJECTS', Buffer.from(`${big.slice(0, -1)},7]`)],
      ['BODY_NOT_UTF8', Buffer.concat([Buffer.from(big.slice(0, -2)), Buffer.from([0xff, 0x7d, 0x5d])])],
      ['BODY_TOO_DEEP', Buffer.from(`${big.slice(0, -1)},${'['.repeat(300)}${']'.repeat(300)}]`)],
      ['BODY_EMPTY', Buffer.from(' '.repeat(1_100_000))],
    ];
    for (const [code, raw] of bad) {
      const errorOf = (onText: Parameters<typeof parseIntakeBody>[1]) => {
        try {
          parseIntakeBody(raw, onText);
        } catch (error) {
          return { code: (error as { code?: string }).code, message: (error as Error).message };
        }
        return null;
      };
      const withoutText = errorOf(null);
      expect(withoutText?.code).toBe(code);
      expect(withoutText).toEqual(errorOf(() => undefined));
    }
  });

  it('parses a large array one step per group of elements (~64 KiB), to the same payloads', () => {
    const steps = parseIntakeBodyInSteps(Buffer.from(big), null);
    let count = 0;
    let step = steps.next();
    for (; !step.done; step = steps.next()) count++;
    expect(count).toBe(Math.floor(Buffer.byteLength(big) / (64 * 1024))); // a step after every group but the last
    expect(asJson(step.value)).toBe(big);
    // Small bodies, and bodies whose text the API log needs, are one step.
    expect(parseIntakeBodyInSteps(Buffer.from(span(1)), null).next()).toMatchObject({ done: true });
    expect(parseIntakeBodyInSteps(Buffer.from(big), () => undefined).next()).toMatchObject({ done: true });
  });

  it('parses a large object body (not an array) as a whole', () => {
    const object = `{"spans":${big}}`;
    expect(asJson(parseIntakeBody(Buffer.from(object), null))).toBe(`[${object}]`);
  });
});
