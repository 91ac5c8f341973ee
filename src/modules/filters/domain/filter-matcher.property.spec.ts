import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import type { JsonObject } from '../../intake/contracts.js';
import { decideFilter, DESCRIPTION_MAX, evaluateFilter, PayloadTexts, TITLE_MAX, type FilterRule } from './filter-matcher.js';

// Small alphabets so that keys hit and texts contain each other often; the risky own keys included.
const flatKey = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', '1'), maxLength: 2 }),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'length'),
);
const anyKey = fc.oneof(flatKey, fc.string({ unit: fc.constantFrom('a', 'b', '.', '0'), maxLength: 5 }), fc.string());
const expectedText = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', '1', '"', '{', ':'), maxLength: 3 }),
  fc.constantFrom('true', 'false', 'null', '[]', '{}'),
  fc.string(),
);
const scalar = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', 'b', '1'), maxLength: 4 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

/** JSON-like payload values; objects built with Object.fromEntries so `__proto__` is an own key, as from JSON.parse. */
const value = (keys: fc.Arbitrary<string>) =>
  fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('node'), { maxLength: 3 }),
      fc.array(fc.tuple(keys, tie('node')), { maxLength: 3 }).map((entries) => Object.fromEntries(entries) as unknown),
    ),
  })).node;
const payloadOf = (keys: fc.Arbitrary<string>): fc.Arbitrary<JsonObject> =>
  fc.array(fc.tuple(keys, value(keys)), { maxLength: 6 }).map((entries) => Object.fromEntries(entries) as JsonObject);

const ruleOf = (keys: fc.Arbitrary<string>): fc.Arbitrary<FilterRule> =>
  fc.record({
    id: fc.uuid(),
    name: fc.option(fc.string(), { nil: null }),
    trigger: fc.record({
      payloadKey: keys,
      valueContains: expectedText,
      mapIncidentWith: fc.option(keys, { nil: null }),
      titleFrom: keys,
      descriptionFrom: fc.option(keys, { nil: null }),
    }),
    resolve: fc.option(fc.record({ payloadKey: keys, valueContains: expectedText, incidentMappedWith: keys }), { nil: null }),
  });

/** The obvious model, for a key without dots: an own key, not null, whose text contains the expected text. */
function referenceMatches(payload: JsonObject, key: string, expected: string): boolean {
  if (!Object.hasOwn(payload, key)) return false;
  const v = payload[key];
  if (v === null) return false;
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return text.includes(expected);
}

const endsInHighSurrogate = (text: string): boolean => /[\ud800-\udbff]$/.test(text);

describe(`${evaluateFilter.name} properties`, () => {
  it('never throws, for any JSON object payload and any rule', () => {
    fc.assert(
      fc.property(ruleOf(anyKey), fc.oneof(payloadOf(anyKey), fc.dictionary(fc.string(), fc.jsonValue())), (rule, payload) => {
        evaluateFilter(rule, payload);
      }),
    );
  });

  it('agrees with the obvious model on payloads whose keys hold no dots', () => {
    fc.assert(
      fc.property(ruleOf(flatKey), payloadOf(flatKey), (rule, payload) => {
        const evaluation = evaluateFilter(rule, payload);
        const triggers = referenceMatches(payload, rule.trigger.payloadKey, rule.trigger.valueContains);
        const resolves = rule.resolve !== null && referenceMatches(payload, rule.resolve.payloadKey, rule.resolve.valueContains);
        expect(evaluation.trigger.matched).toBe(triggers);
        expect(evaluation.resolve.matched).toBe(resolves);
        // Resolve wins: a payload matching it never triggers.
        expect(evaluation.action).toBe(resolves ? 'resolve' : triggers ? 'trigger' : 'none');
      }),
    );
  });

  it('keeps the explanation consistent with the action', () => {
    fc.assert(
      fc.property(ruleOf(anyKey), payloadOf(anyKey), (rule, payload) => {
        const { action, trigger, resolve } = evaluateFilter(rule, payload);
        expect(action).toBe(resolve.matched ? 'resolve' : trigger.matched ? 'trigger' : 'none');
        // A reason exactly when a part did not match, and a missing resolve says so.
        expect(trigger.reason === null).toBe(trigger.matched);
        expect(resolve.reason === null).toBe(resolve.matched);
        if (rule.resolve === null) expect(resolve).toEqual({ matched: false, reason: 'resolve is not configured', mappedValue: null });
        if (!resolve.matched) expect(resolve.mappedValue).toBeNull();
        if (trigger.matched) {
          expect(trigger.title).not.toBe('');
          expect(trigger.title!.length).toBeLessThanOrEqual(TITLE_MAX);
          expect(trigger.description!.length).toBeLessThanOrEqual(DESCRIPTION_MAX);
          if (rule.trigger.mapIncidentWith === null) expect(trigger.mappedValue).toBeNull();
        } else {
          expect([trigger.title, trigger.description, trigger.mappedValue]).toEqual([null, null, null]);
        }
      }),
    );
  });

  it('cuts any title to the maximum as a prefix, never splitting a surrogate pair', () => {
    const long = fc.string({ unit: fc.constantFrom('a', '😀', '\ud800', '\udc00'), minLength: TITLE_MAX - 2, maxLength: TITLE_MAX + 3 });
    fc.assert(
      fc.property(long, (name) => {
        const rule: FilterRule = {
          id: 'f',
          name: null,
          trigger: { payloadKey: 'name', valueContains: '', mapIncidentWith: null, titleFrom: 'name', descriptionFrom: null },
          resolve: null,
        };
        const title = evaluateFilter(rule, { name }).trigger.title!;
        expect(name.startsWith(title)).toBe(true);
        expect(title.length).toBe(name.length <= TITLE_MAX ? name.length : endsInHighSurrogate(name.slice(0, TITLE_MAX)) ? TITLE_MAX - 1 : TITLE_MAX);
        // A pair is split when the title ends in its high half and the name goes on with the low half.
        expect(endsInHighSurrogate(title) && /^[\udc00-\udfff]/.test(name.slice(title.length))).toBe(false);
      }),
    );
  });
});

describe(`${decideFilter.name} properties`, () => {
  it('decides exactly what evaluateFilter explains, for any payload and rule', () => {
    fc.assert(
      fc.property(ruleOf(anyKey), fc.oneof(payloadOf(anyKey), fc.dictionary(fc.string(), fc.jsonValue())), (rule, payload) => {
        const evaluation = evaluateFilter(rule, payload);
        const decision = decideFilter(rule, payload);
        expect(decision.action).toBe(evaluation.action);
        if (decision.action === 'resolve') expect(decision.mappedValue).toBe(evaluation.resolve.mappedValue);
        if (decision.action === 'trigger') {
          expect(decision).toEqual({ action: 'trigger', title: evaluation.trigger.title, description: evaluation.trigger.description, mappedValue: evaluation.trigger.mappedValue });
        }
      }),
      { numRuns: 500 },
    );
  });

  it('decides the same with one PayloadTexts shared by many rules as with each rule alone', () => {
    fc.assert(
      fc.property(fc.array(ruleOf(anyKey), { minLength: 1, maxLength: 8 }), payloadOf(anyKey), (rules, payload) => {
        const texts = new PayloadTexts(payload);
        expect(rules.map((rule) => decideFilter(rule, payload, texts))).toEqual(rules.map((rule) => decideFilter(rule, payload)));
      }),
      { numRuns: 300 },
    );
  });
});
