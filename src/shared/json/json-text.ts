/**
 * JSON.parse that keeps every number's digits as received (PRODUCT.md: "numbers their digits exactly as
 * received (a 64-bit integer id keeps every digit)"). Pure.
 */

// TypeScript's lib does not declare JSON.rawJSON or the reviver's third argument yet (Node 24 has both).
const JsonWithRaw = JSON as unknown as { rawJSON(text: string): unknown };
interface ReviverContext {
  source?: string;
}

/**
 * True when some number token of the JSON text (outside strings) does not print back as itself
 * (`String(Number(token)) !== token`: `1e3`, `1.50`, `-0`, a 64-bit id), which is exactly when
 * the slow path would keep a source text. One pass: strings are skipped with `indexOf` to their
 * closing quote, so digits inside ids, times and paths (`"3e5f…"`, `"/v1.0"`) cost nothing. For
 * text that is not JSON the answer does not matter: both paths throw the same SyntaxError.
 */
export function mayNotRoundTrip(text: string): boolean {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The closing quote is the next one not escaped, i.e. preceded by an even run of backslashes.
      for (;;) {
        i = text.indexOf('"', i + 1);
        if (i < 0) return false;
        let k = i - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((i - 1 - k) % 2 === 0) break;
      }
    } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
      const start = i;
      while (i + 1 < n && isNumberChar(text.charCodeAt(i + 1))) i++;
      const token = text.slice(start, i + 1);
      if (String(Number(token)) !== token) return true;
    }
  }
  return false;
}

const QUOTE = 34;
const BACKSLASH = 92;
const MINUS = 45;
const ZERO = 48;
const NINE = 57;
/** Digits, `.`, `e`, `E`, `+`, `-`: what a number token is made of. */
const isNumberChar = (c: number) => (c >= ZERO && c <= NINE) || c === 46 || c === 101 || c === 69 || c === 43 || c === MINUS;

/**
 * Like `JSON.parse(text)` (a SyntaxError for bad JSON), except that a number whose source text differs
 * from `String(number)` (`12345678901234567890`, `1.50`, `1e3`, `-0`) is `JSON.rawJSON(source)`: its
 * `rawJSON` is the source text and JSON.stringify prints it as received.
 */
export function parseJsonPreservingNumbers(text: string): unknown {
  // The reviver makes parsing several times slower: use it only when some number may need it.
  return mayNotRoundTrip(text) ? parseJsonKeepingEveryNumber(text) : JSON.parse(text);
}

/** The slow path alone (always the reviver); exported for tests. */
export function parseJsonKeepingEveryNumber(text: string): unknown {
  try {
    return JSON.parse(text, keepSourceDigits as (key: string, value: unknown) => unknown);
  } catch (error) {
    if (error instanceof SyntaxError) throw error;
    // The reviver walks recursively: nesting thousands deep overflows the stack (a RangeError) where
    // plain JSON.parse does not. Accept such a payload like JSON.parse would, at the cost of exact digits.
    return JSON.parse(text);
  }
}

function keepSourceDigits(_key: string, value: unknown, context?: ReviverContext): unknown {
  if (typeof value === 'number' && typeof context?.source === 'string' && String(value) !== context.source) {
    return JsonWithRaw.rawJSON(context.source);
  }
  return value;
}

/** A number kept as its source text by parseJsonPreservingNumbers. */
export interface RawJsonNumber {
  readonly rawJSON: string;
}

/** True for a value made by JSON.rawJSON (a number kept as its source text). */
export function isRawJson(value: unknown): value is RawJsonNumber {
  return (JSON as unknown as { isRawJSON(v: unknown): boolean }).isRawJSON(value);
}

/** A JSON object as parsed (not an array, not null, not a number kept as raw text). */
export function isJsonObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !isRawJson(value);
}
