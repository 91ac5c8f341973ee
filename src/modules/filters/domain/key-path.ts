/**
 * Reading a payload value by a (dotted) key and the text a value matches by. See PRODUCT.md,
 * "Filter semantics". Pure; never throws.
 */

import { isRawJson } from '../../../shared/json/json-text.js';

export type KeyRead =
  /** `value` is whatever the payload holds there, null included. */
  | { found: true; value: unknown }
  /** `missing` is the tail of the path that was not found: the whole path when the first step failed. */
  | { found: false; missing: string };

const DOT = '.';
const DOT_CODE = 46;
/** Above this many dots left in the path, a level scans the object's keys instead of probing prefixes. */
const PROBE_MAX_DOTS = 8;
/** Canonical array indices only: no sign, no leading zero, no `length`. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * Reads `path` from `payload`.
 *
 * Rule, applied at every level to the remaining path `rest` and the current value `node`:
 *   1. if `rest` itself is an own key of `node`, that value is the answer;
 *   2. else the dotted prefixes of `rest` are tried longest first, and the walk descends into the
 *      FIRST (longest) one that is an own key of `node`, continuing with what follows its dot;
 *   3. else `rest` is missing.
 * No backtracking: when the walk below the longest existing prefix fails, the key is missing, even if a
 * shorter prefix would have led somewhere. So a key holding dots always wins over a step down and the
 * answer is deterministic. Work: one lookup of the whole rest per level, then either at most
 * PROBE_MAX_DOTS prefix lookups or one pass over the object's own keys; never exponential, and a
 * 500-character path of 250 dots costs about as much as a plain one.
 *
 * Only own keys count (`Object.hasOwn`; nothing inherited); an array has only its canonical indices;
 * strings, numbers (raw JSON numbers too), booleans and null have no members.
 */
export function readKey(payload: unknown, path: string): KeyRead {
  try {
    return walk(payload, path);
  } catch {
    // Only reachable with non-JSON input (a throwing getter or proxy): treat it as not there.
    return { found: false, missing: path };
  }
}

function walk(payload: unknown, path: string): KeyRead {
  let node = payload;
  let start = 0; // the remaining path is path.slice(start)
  for (;;) {
    const rest = start === 0 ? path : path.slice(start);
    if (!isContainer(node)) return { found: false, missing: rest };
    if (hasMember(node, rest)) return { found: true, value: (node as Record<string, unknown>)[rest] };

    let step: string | null = null;
    let dot = -1;
    if (Array.isArray(node)) {
      // An index holds no dot, so the first segment is the only prefix that can be a member.
      dot = path.indexOf(DOT, start);
      if (dot >= 0) {
        const key = path.slice(start, dot);
        if (hasMember(node, key)) step = key;
      }
    } else if (dotsFrom(path, start) <= PROBE_MAX_DOTS) {
      // Few dots: look each prefix up, longest first.
      for (dot = path.lastIndexOf(DOT); dot >= start; dot = dot === 0 ? -1 : path.lastIndexOf(DOT, dot - 1)) {
        const key = path.slice(start, dot);
        if (Object.hasOwn(node, key)) {
          step = key;
          break;
        }
      }
    } else {
      // Many dots: probing every prefix would hash O(dots) new strings per level. Scan the own keys
      // instead for the longest one followed by a dot in the path: same answer, and the work over the
      // whole walk is bounded by the size of the payload.
      for (const key of Object.getOwnPropertyNames(node)) {
        const end = start + key.length;
        if ((step === null || key.length > step.length) && path.charCodeAt(end) === DOT_CODE && path.startsWith(key, start)) {
          step = key;
          dot = end;
        }
      }
    }
    if (step === null) return { found: false, missing: rest };
    node = (node as Record<string, unknown>)[step];
    start = dot + 1;
  }
}

function dotsFrom(path: string, start: number): number {
  let dots = 0;
  for (let i = path.indexOf(DOT, start); i >= 0 && dots <= PROBE_MAX_DOTS; i = path.indexOf(DOT, i + 1)) dots += 1;
  return dots;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !isRawJson(value);
}

function hasMember(node: object, key: string): boolean {
  if (Array.isArray(node)) {
    return ARRAY_INDEX.test(key) && Number(key) < node.length && Object.hasOwn(node, key);
  }
  return Object.hasOwn(node, key);
}

/**
 * The text a value matches by: strings are themselves, numbers their digits as received (a raw JSON
 * number's source text), booleans `true`/`false`, objects and arrays their JSON. Null, undefined and
 * anything that cannot be printed (not JSON: symbols, functions, cycles, nesting too deep for
 * JSON.stringify) have no text: null, which never matches.
 */
export function valueText(value: unknown): string | null {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'bigint':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return null;
      try {
        if (isRawJson(value)) return value.rawJSON;
        const text: unknown = JSON.stringify(value);
        return typeof text === 'string' ? text : null;
      } catch {
        return null;
      }
    default:
      return null;
  }
}
