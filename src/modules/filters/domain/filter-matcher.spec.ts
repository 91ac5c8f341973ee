import { describe, expect, it } from '@jest/globals';
import type { JsonObject } from '../../intake/contracts.js';
import {
  DESCRIPTION_MAX,
  evaluateFilter,
  REASON_QUOTE_MAX,
  TITLE_MAX,
  UNPRINTABLE_PAYLOAD,
  cutText,
  type FilterRule,
  type ResolveRule,
  type TriggerRule,
} from './filter-matcher.js';

// JSON.rawJSON is what intake's parser makes of a number whose digits would change; TS's lib lacks it.
const rawJson = (text: string): unknown => (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(text);

function rule(trigger: Partial<TriggerRule> = {}, resolve: ResolveRule | null = null, name: string | null = 'Checkout'): FilterRule {
  return {
    id: 'f-1',
    name,
    trigger: { payloadKey: 'status', valueContains: 'running', mapIncidentWith: null, titleFrom: 'name', descriptionFrom: null, ...trigger },
    resolve,
  };
}

/** PRODUCT.md, "Templates": zipkin-tracing. */
const zipkin: FilterRule = {
  id: 'f-zipkin',
  name: 'Traces',
  trigger: { payloadKey: 'status', valueContains: 'running', mapIncidentWith: 'traceId', titleFrom: 'name', descriptionFrom: 'duration' },
  resolve: { payloadKey: 'status', valueContains: 'completed', incidentMappedWith: 'traceId' },
};
/** PRODUCT.md, "Templates": alert-webhook. */
const alertWebhook: FilterRule = {
  id: 'f-alert',
  name: 'Alerts',
  trigger: { payloadKey: 'title', valueContains: 'Alert', mapIncidentWith: null, titleFrom: 'title', descriptionFrom: 'body' },
  resolve: null,
};
const ALERT_TITLE = '🚨 Alert for "Payment errors" - 3 lines found';

describe(evaluateFilter.name, () => {
  describe('trigger matching', () => {
    it.each<[string, Partial<TriggerRule>, JsonObject]>([
      ['a string containing the text', {}, { status: 'is running now' }],
      ['a string equal to the text', {}, { status: 'running' }],
      ['an empty expected text and any value', { valueContains: '' }, { status: '' }],
      ['a dotted path into an object', { payloadKey: 'tags.status' }, { tags: { status: 'running' } }],
      ['a dotted path into an array', { payloadKey: 'alerts.1.status' }, { alerts: [{}, { status: 'running' }] }],
      ['a key holding dots, one level down', { payloadKey: 'tags.http.path', valueContains: '/pay' }, { tags: { 'http.path': '/pay', http: { path: '/x' } } }],
      ['a key holding dots at the top', { payloadKey: 'a.b' }, { 'a.b': 'running', a: { b: 'idle' } }],
      ['an integer by its digits', { payloadKey: 'code', valueContains: '50' }, { code: 503 }],
      ['a 64-bit integer by every digit', { payloadKey: 'id', valueContains: '34567890' }, { id: rawJson('12345678901234567890') }],
      ['a trailing-zero fraction as received', { payloadKey: 'v', valueContains: '1.50' }, { v: rawJson('1.50') }],
      ['true', { payloadKey: 'ok', valueContains: 'true' }, { ok: true }],
      ['false', { payloadKey: 'ok', valueContains: 'fal' }, { ok: false }],
      ['an object by its JSON', { payloadKey: 'tags', valueContains: '"status":"running"' }, { tags: { status: 'running' } }],
      ['an array by its JSON', { payloadKey: 'list', valueContains: '[1,"running"]' }, { list: [1, 'running'] }],
      ['an own __proto__ key', { payloadKey: '__proto__' }, JSON.parse('{"__proto__": "running"}') as JsonObject],
      ['an own constructor key', { payloadKey: 'constructor' }, JSON.parse('{"constructor": "running"}') as JsonObject],
    ])('matches %s', (_case, trigger, payload) => {
      const evaluation = evaluateFilter(rule(trigger), payload);
      expect(evaluation.trigger).toMatchObject({ matched: true, reason: null });
      expect(evaluation.action).toBe('trigger');
    });

    it.each<[string, Partial<TriggerRule>, JsonObject, string]>([
      ['an absent key', {}, { state: 'running' }, 'key "status" is absent from the payload'],
      ['a null value', {}, { status: null }, 'key "status" is null'],
      ['a value without the text', {}, { status: 'completed' }, 'value of "status" ("completed") does not contain "running"'],
      ['a different case', {}, { status: 'RUNNING' }, 'value of "status" ("RUNNING") does not contain "running"'],
      ['an absent nested key', { payloadKey: 'tags.status' }, { tags: {} }, 'key "tags.status" is absent (no "status" in "tags")'],
      ['an absent first step', { payloadKey: 'tags.status' }, { other: 1 }, 'key "tags.status" is absent from the payload'],
      ['an index past the end', { payloadKey: 'alerts.1.status' }, { alerts: [{ status: 'running' }] }, 'key "alerts.1.status" is absent (no "1.status" in "alerts")'],
      ['a member of a string', { payloadKey: 'status.length', valueContains: '7' }, { status: 'running' }, 'key "status.length" is absent (no "length" in "status")'],
      ['an inherited key', { payloadKey: 'constructor', valueContains: 'Object' }, {}, 'key "constructor" is absent from the payload'],
      ['an inherited toString', { payloadKey: 'toString', valueContains: 'function' }, {}, 'key "toString" is absent from the payload'],
      ['a null nested value', { payloadKey: 'a.b' }, { a: { b: null } }, 'key "a.b" is null'],
      ['a string "null" is text, but null is not', { payloadKey: 'v', valueContains: 'null' }, { v: null }, 'key "v" is null'],
    ])('does not match %s', (_case, trigger, payload, reason) => {
      expect(evaluateFilter(rule(trigger), payload)).toEqual({
        action: 'none',
        trigger: { matched: false, reason, title: null, description: null, mappedValue: null },
        resolve: { matched: false, reason: 'resolve is not configured', mappedValue: null },
      });
    });

    it('quotes at most 100 characters of a long value', () => {
      const value = 'x'.repeat(500);
      const { trigger } = evaluateFilter(rule(), { status: value });
      expect(trigger.reason).toBe(`value of "status" ("${'x'.repeat(REASON_QUOTE_MAX)}…") does not contain "running"`);
    });
  });

  describe('what a trigger produces', () => {
    it.each<[string, Partial<TriggerRule>, JsonObject, string | null]>([
      ['the text of the mapping key', { mapIncidentWith: 'traceId' }, { status: 'running', traceId: 'abc' }, 'abc'],
      ['every digit of a 64-bit id', { mapIncidentWith: 'id' }, { status: 'running', id: rawJson('9007199254740993') }, '9007199254740993'],
      ['a number', { mapIncidentWith: 'n' }, { status: 'running', n: 7 }, '7'],
      ['a nested mapping key', { mapIncidentWith: 'span.trace' }, { status: 'running', span: { trace: 't1' } }, 't1'],
      ['null when no mapping is set', { mapIncidentWith: null }, { status: 'running', traceId: 'abc' }, null],
      ['null when the mapping key is absent', { mapIncidentWith: 'traceId' }, { status: 'running' }, null],
      ['null when the mapping value is null', { mapIncidentWith: 'traceId' }, { status: 'running', traceId: null }, null],
    ])('maps with %s', (_case, trigger, payload, mappedValue) => {
      expect(evaluateFilter(rule(trigger), payload).trigger.mappedValue).toBe(mappedValue);
    });

    it.each<[string, FilterRule, JsonObject, string]>([
      ['the titleFrom value', rule(), { status: 'running', name: 'GET /pay' }, 'GET /pay'],
      ['a non-string titleFrom value as text', rule(), { status: 'running', name: 404 }, '404'],
      ['the fallback naming the filter when the key is absent', rule(), { status: 'running' }, 'Incident from filter "Checkout"'],
      ['the fallback when the value is null', rule(), { status: 'running', name: null }, 'Incident from filter "Checkout"'],
      ['the fallback when the value is empty', rule(), { status: 'running', name: '' }, 'Incident from filter "Checkout"'],
      ['the fallback with the id when the filter has no name', rule({}, null, null), { status: 'running' }, 'Incident from filter f-1'],
      ['the fallback with the id when the name is empty', rule({}, null, ''), { status: 'running' }, 'Incident from filter f-1'],
      ['a title cut to the maximum', rule(), { status: 'running', name: 't'.repeat(TITLE_MAX + 5) }, 't'.repeat(TITLE_MAX)],
      [
        'a title cut before a surrogate pair it would split',
        rule(),
        { status: 'running', name: `${'t'.repeat(TITLE_MAX - 1)}😀tail` },
        't'.repeat(TITLE_MAX - 1),
      ],
      ['a pair kept whole when it fits', rule(), { status: 'running', name: `${'t'.repeat(TITLE_MAX - 2)}😀tail` }, `${'t'.repeat(TITLE_MAX - 2)}😀`],
    ])('titles with %s', (_case, filter, payload, title) => {
      expect(evaluateFilter(filter, payload).trigger.title).toBe(title);
    });

    it.each<[string, string | null, JsonObject, string]>([
      ['the descriptionFrom value', 'body', { status: 'running', body: 'details' }, 'details'],
      ['the descriptionFrom value as JSON', 'body', { status: 'running', body: { lines: [1, 2] } }, '{"lines":[1,2]}'],
      ['an empty descriptionFrom value', 'body', { status: 'running', body: '' }, ''],
      ['the full JSON when descriptionFrom is unset', null, { status: 'running', body: 'details' }, '{"status":"running","body":"details"}'],
      ['the full JSON when the key is absent', 'body', { status: 'running' }, '{"status":"running"}'],
      ['the full JSON when the value is null', 'body', { status: 'running', body: null }, '{"status":"running","body":null}'],
      ['the full JSON with every digit as received', null, { status: 'running', id: rawJson('12345678901234567890') }, '{"status":"running","id":12345678901234567890}'],
    ])('describes with %s', (_case, descriptionFrom, payload, description) => {
      expect(evaluateFilter(rule({ descriptionFrom }), payload).trigger.description).toBe(description);
    });

    it('cuts a description to the maximum', () => {
      const body = `${'d'.repeat(DESCRIPTION_MAX - 1)}😀`;
      expect(evaluateFilter(rule({ descriptionFrom: 'body' }), { status: 'running', body }).trigger.description).toBe(
        'd'.repeat(DESCRIPTION_MAX - 1),
      );
      const json = evaluateFilter(rule(), { status: 'running', body: 'x'.repeat(DESCRIPTION_MAX) }).trigger.description;
      expect(json).toBe(`{"status":"running","body":"${'x'.repeat(DESCRIPTION_MAX)}`.slice(0, DESCRIPTION_MAX));
    });

    it('describes a payload too deep to print without throwing', () => {
      const depth = 200_000;
      const payload = JSON.parse(`{"status":"running","deep":${'['.repeat(depth)}${']'.repeat(depth)}}`) as JsonObject;
      expect(evaluateFilter(rule(), payload).trigger).toMatchObject({ matched: true, description: UNPRINTABLE_PAYLOAD });
    });
  });

  describe('resolve', () => {
    const resolve: ResolveRule = { payloadKey: 'status', valueContains: 'completed', incidentMappedWith: 'traceId' };

    it('is checked before the trigger: a payload matching both resolves', () => {
      const filter = rule({ valueContains: 'e' }, resolve);
      const evaluation = evaluateFilter(filter, { status: 'completed', traceId: 't1', name: 'n' });
      expect(evaluation).toEqual({
        action: 'resolve',
        // Still computed, for the dry run; the action stays resolve.
        trigger: { matched: true, reason: null, title: 'n', description: '{"status":"completed","traceId":"t1","name":"n"}', mappedValue: null },
        resolve: { matched: true, reason: null, mappedValue: 't1' },
      });
    });

    it.each<[string, JsonObject, string | null]>([
      ['the mapped value', { status: 'completed', traceId: 't1' }, 't1'],
      ['every digit of a 64-bit mapped value', { status: 'completed', traceId: rawJson('12345678901234567890') }, '12345678901234567890'],
      ['no mapped value when the key is absent', { status: 'completed' }, null],
      ['no mapped value when it is null', { status: 'completed', traceId: null }, null],
    ])('matches with %s', (_case, payload, mappedValue) => {
      expect(evaluateFilter(rule({}, resolve), payload)).toMatchObject({ action: 'resolve', resolve: { matched: true, reason: null, mappedValue } });
    });

    it.each<[string, JsonObject, string]>([
      ['an absent key', { traceId: 't1' }, 'key "status" is absent from the payload'],
      ['a null value', { status: null }, 'key "status" is null'],
      ['a value without the text', { status: 'running' }, 'value of "status" ("running") does not contain "completed"'],
      ['a different case', { status: 'COMPLETED' }, 'value of "status" ("COMPLETED") does not contain "completed"'],
    ])('does not match %s', (_case, payload, reason) => {
      expect(evaluateFilter(rule({}, resolve), payload).resolve).toEqual({ matched: false, reason, mappedValue: null });
    });
  });

  describe('templates (PRODUCT.md)', () => {
    it.each<[string, FilterRule, JsonObject, ReturnType<typeof evaluateFilter>]>([
      [
        'zipkin-tracing: a running span triggers',
        zipkin,
        { traceId: '5af7183fb1d4cf5f', name: 'get /checkout', duration: 1520, status: 'running' },
        {
          action: 'trigger',
          trigger: { matched: true, reason: null, title: 'get /checkout', description: '1520', mappedValue: '5af7183fb1d4cf5f' },
          resolve: { matched: false, reason: 'value of "status" ("running") does not contain "completed"', mappedValue: null },
        },
      ],
      [
        'zipkin-tracing: a completed span resolves',
        zipkin,
        { traceId: '5af7183fb1d4cf5f', name: 'get /checkout', duration: 1520, status: 'completed' },
        {
          action: 'resolve',
          trigger: { matched: false, reason: 'value of "status" ("completed") does not contain "running"', title: null, description: null, mappedValue: null },
          resolve: { matched: true, reason: null, mappedValue: '5af7183fb1d4cf5f' },
        },
      ],
      [
        'zipkin-tracing: a span without status does nothing',
        zipkin,
        { traceId: '5af7183fb1d4cf5f', name: 'get /checkout', duration: 1520 },
        {
          action: 'none',
          trigger: { matched: false, reason: 'key "status" is absent from the payload', title: null, description: null, mappedValue: null },
          resolve: { matched: false, reason: 'key "status" is absent from the payload', mappedValue: null },
        },
      ],
      [
        'alert-webhook: an alert triggers, its title kept exactly',
        alertWebhook,
        { title: ALERT_TITLE, body: '3 lines matched "payment failed"', link: 'https://logs.example.com/q/1' },
        {
          action: 'trigger',
          trigger: { matched: true, reason: null, title: ALERT_TITLE, description: '3 lines matched "payment failed"', mappedValue: null },
          resolve: { matched: false, reason: 'resolve is not configured', mappedValue: null },
        },
      ],
      [
        'alert-webhook: without a body, the description is the full JSON',
        alertWebhook,
        { title: ALERT_TITLE },
        {
          action: 'trigger',
          trigger: { matched: true, reason: null, title: ALERT_TITLE, description: JSON.stringify({ title: ALERT_TITLE }), mappedValue: null },
          resolve: { matched: false, reason: 'resolve is not configured', mappedValue: null },
        },
      ],
      [
        'alert-webhook: the match is case-sensitive',
        alertWebhook,
        { title: 'alert for x', body: 'b' },
        {
          action: 'none',
          trigger: { matched: false, reason: 'value of "title" ("alert for x") does not contain "Alert"', title: null, description: null, mappedValue: null },
          resolve: { matched: false, reason: 'resolve is not configured', mappedValue: null },
        },
      ],
    ])('%s', (_case, filter, payload, evaluation) => {
      expect(evaluateFilter(filter, payload)).toEqual(evaluation);
    });
  });
});

describe(cutText.name, () => {
  it.each([
    ['a text that fits', 'abc', 3, 'abc'],
    ['a longer text', 'abcdef', 3, 'abc'],
    ['before a pair it would split', 'ab😀', 3, 'ab'],
    ['after a whole pair', 'a😀b', 3, 'a😀'],
    ['a lone low surrogate as any unit', 'ab\udc00c', 3, 'ab\udc00'],
  ])('cuts %s', (_case, text, max, cut) => {
    expect(cutText(text, max)).toBe(cut);
  });
});
