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
 * True when the text may hold a JSON number token whose `String(JSON.parse(token))` differs from the
 * token; false positives only cost speed. Why it is complete, for a token
 * `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`:
 *   - an exponent always follows the token's digits: `-?\d+(?:\.\d+)?[eE]`;
 *   - with no exponent, JavaScript prints the shortest digits that round-trip, in plain notation when
 *     1e-6 <= |x| < 1e21. A decimal of at most 15 significant digits is the only one of at most 15 digits
 *     that maps to its double (DBL_DIG = 15), so it prints back as itself, except when
 *       - its fraction ends in 0 (`1.50`, `1.0`, `0.0`, `-0.00`): `-?\d+\.\d*0(?!\d)`;
 *       - |x| < 1e-6, i.e. six zeros right after the dot: `-?0\.0{6}`;
 *       - it is negative zero without a fraction (`-0` prints as `0`): `-0(?![.\d])`;
 *       - it has 16+ digits (its digits run contiguously around at most one dot, so it lies in a run
 *         `\d[\d.]{15,}`), which covers |x| >= 1e21 (22+ digits) too. Such a run is safe only when it
 *         is an integer of exactly 16 digits up to 2^53 = 9007199254740992: every integer up to 2^53
 *         is a double and prints as itself. That exception keeps Zipkin's 16-digit microsecond
 *         timestamps on the fast path.
 * Every other token prints back exactly, so when this is false, JSON.parse keeps every digit.
 */
// A JSON number token never follows a letter, digit or dot (only `:`, `,`, `[` or white space), has
// no leading zero, and ends at `,`, `]`, `}`, white space or the end: anchoring the patterns so keeps
// hex ids ("9e6a…") and ISO times ("…T00:00:00.000Z") inside strings on the fast path.
const SHORT_PATTERNS = /(?<![\w.])-?(?:0|[1-9]\d*)(?:\.\d+)?[eE][+-]?\d|(?<![\w.])-?(?:0|[1-9]\d*)\.\d*0(?=[\s,\]}]|$)|(?<![\w.])-?0\.0{6}|(?<![\w.])-0(?![.\d])/;
const LONG_RUN = /(?<![\w.])-?\d[\d.]{15,}/g;
const MAX_SAFE_16_DIGITS = String(2 ** 53);

export function mayNotRoundTrip(text: string): boolean {
  if (SHORT_PATTERNS.test(text)) return true;
  for (const [run] of text.matchAll(LONG_RUN)) {
    const digits = run.startsWith('-') ? run.slice(1) : run;
    if (digits.length > 16 || digits.includes('.') || digits > MAX_SAFE_16_DIGITS) return true;
  }
  return false;
}

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
