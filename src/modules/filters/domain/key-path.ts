/**
 * Reading a payload value by a (dotted) key and the text a value matches by. See PRODUCT.md,
 * "Filter semantics". Pure; never throws.
 */

/** Node 24's `JSON.rawJSON(text)` object: a number kept as its source text (intake's parser makes them). */
export interface RawJsonNumber {
  readonly rawJSON: string;
}

// TypeScript's lib does not declare JSON.isRawJSON yet (Node 24 has it).
const JsonWithRaw = JSON as unknown as { isRawJSON(value: unknown): value is RawJsonNumber };

export type KeyRead =
  /** `value` is whatever the payload holds there, null included. */
  | { found: true; value: unknown }
  /** `missing` is the tail of the path that was not found: the whole path when the first step failed. */
  | { found: false; missing: string };

const DOT = '.';
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
 * shorter prefix would have led somewhere. So a key holding dots always wins over a step down, the answer
 * is deterministic, and the work is at most (dots + 1)^2 own-key lookups, never exponential.
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
    } else {
      for (dot = path.lastIndexOf(DOT); dot >= start; dot = dot === 0 ? -1 : path.lastIndexOf(DOT, dot - 1)) {
        const key = path.slice(start, dot);
        if (Object.hasOwn(node, key)) {
          step = key;
          break;
        }
      }
    }
    if (step === null) return { found: false, missing: rest };
    node = (node as Record<string, unknown>)[step];
    start = dot + 1;
  }
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !JsonWithRaw.isRawJSON(value);
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
        if (JsonWithRaw.isRawJSON(value)) return value.rawJSON;
        const text: unknown = JSON.stringify(value);
        return typeof text === 'string' ? text : null;
      } catch {
        return null;
      }
    default:
      return null;
  }
}
