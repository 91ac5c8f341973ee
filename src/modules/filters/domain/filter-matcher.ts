/**
 * Pure matching: payload in, decision out; no Nest, no ORM. See PRODUCT.md, "Filter semantics".
 * The interface is fixed (the pipeline, dry run and backtest rely on it); it must never throw.
 */
import type { JsonObject } from '../../intake/contracts.js';
import { readKey, valueText } from './key-path.js';

export const TITLE_MAX = 1000;
export const DESCRIPTION_MAX = 100_000;

export interface TriggerRule {
  payloadKey: string;
  valueContains: string;
  mapIncidentWith: string | null;
  titleFrom: string;
  descriptionFrom: string | null;
}

export interface ResolveRule {
  payloadKey: string;
  valueContains: string;
  incidentMappedWith: string;
}

export interface FilterRule {
  id: string;
  name: string | null;
  trigger: TriggerRule;
  resolve: ResolveRule | null;
}

export interface TriggerExplanation {
  matched: boolean;
  /** Why it did not match, in words; null when it matched. */
  reason: string | null;
  title: string | null;
  description: string | null;
  mappedValue: string | null;
}

export interface ResolveExplanation {
  matched: boolean;
  reason: string | null;
  mappedValue: string | null;
}

export interface Evaluation {
  action: 'trigger' | 'resolve' | 'none';
  trigger: TriggerExplanation;
  resolve: ResolveExplanation;
}

/** Cuts `text` to at most `max` UTF-16 units, never keeping half of a surrogate pair. */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  // A high surrogate as the last kept unit would be half a pair: drop it too.
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** How much of a value a reason quotes. */
export const REASON_QUOTE_MAX = 100;
/** The description when the payload cannot be printed (non-JSON input, or nesting JSON.stringify cannot walk). */
export const UNPRINTABLE_PAYLOAD = '(the payload cannot be printed as JSON)';

/** Resolve first, then trigger (computed either way, for the dry run); the action follows. Never throws. */
export function evaluateFilter(rule: FilterRule, payload: JsonObject): Evaluation {
  const resolve = evaluateResolve(rule.resolve, payload);
  const trigger = evaluateTrigger(rule, payload);
  const action = resolve.matched ? 'resolve' : trigger.matched ? 'trigger' : 'none';
  return { action, trigger, resolve };
}

function evaluateResolve(resolve: ResolveRule | null, payload: JsonObject): ResolveExplanation {
  if (!resolve) {
    return { matched: false, reason: 'resolve is not configured', mappedValue: null };
  }
  const reason = mismatch(payload, resolve.payloadKey, resolve.valueContains);
  if (reason !== null) return { matched: false, reason, mappedValue: null };
  return { matched: true, reason: null, mappedValue: textAt(payload, resolve.incidentMappedWith) };
}

function evaluateTrigger(rule: FilterRule, payload: JsonObject): TriggerExplanation {
  const trigger = rule.trigger;
  const reason = mismatch(payload, trigger.payloadKey, trigger.valueContains);
  if (reason !== null) return { matched: false, reason, title: null, description: null, mappedValue: null };
  return {
    matched: true,
    reason: null,
    title: titleOf(rule, payload),
    description: descriptionOf(trigger.descriptionFrom, payload),
    mappedValue: textAt(payload, trigger.mapIncidentWith),
  };
}

/** Null when the value at `key` contains `expected`; otherwise why not, in words an admin can act on. */
function mismatch(payload: JsonObject, key: string, expected: string): string | null {
  const read = readKey(payload, key);
  if (!read.found) {
    if (read.missing === key) return `key "${key}" is absent from the payload`;
    // `missing` is the tail after a dot: what precedes that dot was found.
    const parent = key.slice(0, key.length - read.missing.length - 1);
    return `key "${key}" is absent (no "${read.missing}" in "${parent}")`;
  }
  if (read.value === null) return `key "${key}" is null`;
  const text = valueText(read.value);
  if (text === null) return `value of "${key}" has no text to match`;
  if (text.includes(expected)) return null;
  const quoted = text.length > REASON_QUOTE_MAX ? `${cutText(text, REASON_QUOTE_MAX)}…` : text;
  return `value of "${key}" ("${quoted}") does not contain "${expected}"`;
}

/** The text at `key`; null when the key is unset, absent from the payload, or its value is null. */
function textAt(payload: JsonObject, key: string | null): string | null {
  if (typeof key !== 'string') return null;
  const read = readKey(payload, key);
  return read.found ? valueText(read.value) : null;
}

function titleOf(rule: FilterRule, payload: JsonObject, texts?: PayloadTexts): string {
  const text = texts ? texts.at(rule.trigger.titleFrom) : textAt(payload, rule.trigger.titleFrom);
  if (text !== null && text !== '') return cutText(text, TITLE_MAX);
  // An empty name would print `""`: the id names the filter better then.
  const fallback = rule.name ? `Incident from filter "${rule.name}"` : `Incident from filter ${rule.id}`;
  return cutText(fallback, TITLE_MAX);
}

function descriptionOf(descriptionFrom: string | null, payload: JsonObject, texts?: PayloadTexts): string {
  const text = texts && descriptionFrom !== null ? texts.at(descriptionFrom) : textAt(payload, descriptionFrom);
  if (text !== null) return cutText(text, DESCRIPTION_MAX);
  let json: unknown;
  try {
    json = JSON.stringify(payload); // raw JSON numbers print as received
  } catch {
    json = undefined;
  }
  return typeof json === 'string' ? cutText(json, DESCRIPTION_MAX) : UNPRINTABLE_PAYLOAD;
}

/** What the intake needs of an evaluation: the action and, for a trigger, the incident's values. */
export type Decision =
  | { action: 'trigger'; title: string; description: string; mappedValue: string | null }
  | { action: 'resolve'; mappedValue: string | null }
  | { action: 'none' };

/**
 * The texts of one payload's keys, each read once: a token's filters often look at the same keys
 * (`status`, `traceId`, `name`), so deciding 100 filters reads a handful of keys, not 300.
 */
export class PayloadTexts {
  private readonly texts = new Map<string, string | null>();

  constructor(readonly payload: JsonObject) {}

  /** As `textAt`: null when the key is absent or its value null or without text. */
  at(key: string): string | null {
    let text = this.texts.get(key);
    if (text === undefined) {
      text = textAt(this.payload, key);
      this.texts.set(key, text);
    }
    return text;
  }

  /** True when the value at `key` has text that contains `expected`. */
  matches(key: string, expected: string): boolean {
    const text = this.at(key);
    return text !== null && text.includes(expected);
  }
}

/**
 * The same decision as `evaluateFilter(rule, payload).action` and its values, without the
 * explanations: the intake's hot path, run for every filter of a token on every payload (pass one
 * PayloadTexts per payload to all of them).
 */
export function decideFilter(rule: FilterRule, payload: JsonObject, texts = new PayloadTexts(payload)): Decision {
  const resolve = rule.resolve;
  if (resolve && texts.matches(resolve.payloadKey, resolve.valueContains)) {
    return { action: 'resolve', mappedValue: texts.at(resolve.incidentMappedWith) };
  }
  const trigger = rule.trigger;
  if (!texts.matches(trigger.payloadKey, trigger.valueContains)) return { action: 'none' };
  return {
    action: 'trigger',
    title: titleOf(rule, payload, texts),
    description: descriptionOf(trigger.descriptionFrom, payload, texts),
    mappedValue: trigger.mapIncidentWith === null ? null : texts.at(trigger.mapIncidentWith),
  };
}
