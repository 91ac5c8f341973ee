import { isUtf8 } from 'node:buffer';
import { gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../../../shared/errors/body-errors.js';
import { InvalidInputError } from '../../../shared/errors/domain-error.js';
import { MAX_BODY_BYTES } from '../../../shared/http/limits.js';
import type { JsonObject } from '../contracts.js';
import { isJsonObject, isRawJson, parseJsonPreservingNumbers } from '../../../shared/json/json-text.js';
import { runToEnd, type Steps } from '../../../shared/work/slices.js';

/** Deepest nesting accepted; real integrations stay far below, and deeper input endangers every later step. */
export const MAX_DEPTH = 256;

export interface IntakeHeaders {
  contentType?: string;
  contentEncoding?: string;
}

/** `application/json` or any `+json` type, parameters such as charset allowed. */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const essence = contentType.split(';')[0].trim().toLowerCase();
  return essence === 'application/json' || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(essence);
}

function decompress(bytes: Buffer, encoding: string | undefined): Buffer {
  const coding = (encoding ?? 'identity').trim().toLowerCase();
  if (coding === '' || coding === 'identity') return bytes;
  const options = { maxOutputLength: MAX_BODY_BYTES };
  try {
    if (coding === 'gzip' || coding === 'x-gzip') return gunzipSync(bytes, options);
    if (coding === 'deflate') {
      // Some senders put raw deflate under "deflate"; accept both framings.
      try {
        return inflateSync(bytes, options);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error;
        return inflateRawSync(bytes, options);
      }
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new PayloadTooLargeError(`body exceeds ${MAX_BODY_BYTES} bytes after ${coding} decompression`);
    }
    throw new InvalidInputError('BODY_ENCODING_INVALID', `body is not valid ${coding} data: ${(error as Error).message}`);
  }
  throw new UnsupportedMediaTypeError(`Content-Encoding ${coding.slice(0, 40)} is not supported; use gzip, deflate or none`);
}


const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** Deepest nesting of arrays and objects in a JSON text, strings skipped; stops past `limit`. */
export function nestingDepth(text: string, limit: number): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max && (max = depth) > limit) return max;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/** Receives the body's text for the API log, as soon as it is known (also when the body is then rejected), and again once it is known to be JSON. */
export type OnText = (text: string, isJson: boolean) => void;

/**
 * An intake body is read in two steps: `decompressIntakeBody`, then `parseIntakeBody`.
 * This one checks the media type, enforces the size limit and decompresses (the limit applies again
 * to the result): cheap next to parsing, and it tells the exact size to parse.
 */
export function decompressIntakeBody(bytes: Buffer, headers: IntakeHeaders, onText: OnText | null): Buffer {
  if (!isJsonMediaType(headers.contentType)) {
    onText?.(bytes.toString('utf8'), false);
    const given = headers.contentType ? `got ${headers.contentType.slice(0, 100)}` : 'the header is missing';
    throw new UnsupportedMediaTypeError(`Content-Type must be application/json; ${given}`);
  }
  if (bytes.length > MAX_BODY_BYTES) throw new PayloadTooLargeError(`body exceeds ${MAX_BODY_BYTES} bytes`);
  return decompress(bytes, headers.contentEncoding);
}

/**
 * The payloads of decompressed JSON bytes: decodes UTF-8 and parses JSON (numbers keep their
 * digits). An object is one payload; an array is one payload per element, each of which must be
 * an object. `onText` null says that nobody needs the text: a large array is then parsed in groups
 * of elements (`parseArrayInGroups`), without ever holding the whole text.
 */
export function parseIntakeBody(raw: Buffer, onText: OnText | null): JsonObject[] {
  return runToEnd(parseIntakeBodyInSteps(raw, onText));
}

/**
 * `parseIntakeBody` as steps (see `runInSlices`): a large array parsed in groups yields after each
 * group, so that its parsing can give the event loop back between groups.
 */
export function* parseIntakeBodyInSteps(raw: Buffer, onText: OnText | null): Steps<JsonObject[]> {
  if (onText === null && raw.length >= GROUPED_FROM_BYTES && isUtf8(raw)) {
    const elements = yield* arrayInGroups(raw, startsWithBom(raw) ? 3 : 0, GROUP_BYTES);
    if (elements !== null) return toPayloads(elements);
    // Not one well-formed array: the whole text gives the usual answer (an object, or the error).
  }
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    onText?.(raw.toString('utf8'), false);
    throw new InvalidInputError('BODY_NOT_UTF8', 'body is not valid UTF-8');
  }
  onText?.(text, false);
  if (text.trim() === '') throw new InvalidInputError('BODY_EMPTY', 'body is empty; send a JSON object or an array of objects');
  if (text.length > 2 * MAX_DEPTH && nestingDepth(text, MAX_DEPTH) > MAX_DEPTH) {
    throw new InvalidInputError('BODY_TOO_DEEP', `JSON is nested deeper than ${MAX_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = parseJsonPreservingNumbers(text);
  } catch (error) {
    throw new InvalidInputError('JSON_INVALID', `body is not valid JSON: ${(error as Error).message}`);
  }
  onText?.(text, true);
  return toPayloads(value);
}

/** From about 1 MB on, Node keeps a decoded string outside the V8 heap: such bodies are parsed in groups. */
const GROUPED_FROM_BYTES = 1_000_000;
/** Each group's text is a small string on the V8 heap that dies young. */
const GROUP_BYTES = 64 * 1024;

const startsWithBom = (raw: Buffer) => raw.length >= 3 && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
const isJsonSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/**
 * The elements of a top-level JSON array in valid UTF-8 bytes, parsed a group of elements at a
 * time. Decoded at once, the text of a body of several MiB is a string Node keeps outside the V8
 * heap, allocated as old and freed only by a full collection, which V8 starts when some 64 MiB of
 * such memory has piled up: 5 MiB bodies left a dozen dead texts behind (docs/DECISIONS.md,
 * "Memory"). Each group's text is a small string that the next young collection frees.
 *
 * A scan that skips strings finds the commas between top-level elements (structural characters are
 * ASCII, which never occurs inside a multi-byte UTF-8 sequence) and cuts there, so each group is a
 * list of whole elements. The group is decoded with the comma before it and the one after it read
 * as `[` and `]` (written into `raw` for the decoding and put back at once: no second copy), and
 * parsed as the whole text would parse those elements, numbers keeping their digits. Nesting is
 * counted as `nestingDepth` counts it. Returns null when the bytes are anything but one well-formed
 * array, so that the caller parses the whole text and answers exactly as before.
 */
export function parseArrayInGroups(raw: Buffer, start: number, groupBytes = GROUP_BYTES): unknown[] | null {
  return runToEnd(arrayInGroups(raw, start, groupBytes));
}

/** `parseArrayInGroups` as steps: one step per group of elements. */
function* arrayInGroups(raw: Buffer, start: number, groupBytes: number): Steps<unknown[] | null> {
  let i = start;
  while (i < raw.length && isJsonSpace(raw[i])) i++;
  if (raw[i] !== 0x5b) return null; // not an array
  const elements: unknown[] = [];
  let open = i; // the `[` or `,` before the current group
  let groups = 0;
  const parseGroup = (close: number, last: boolean): boolean => {
    const [before, after] = [raw[open], raw[close]];
    raw[open] = 0x5b;
    raw[close] = 0x5d;
    const text = raw.toString('utf8', open, close + 1);
    raw[open] = before;
    raw[close] = after;
    let group: unknown[];
    try {
      group = parseJsonPreservingNumbers(text) as unknown[];
    } catch {
      return false;
    }
    // An empty group is an empty array only when it is the whole array; beside a cut, an element is missing.
    if (group.length === 0 && (groups > 0 || !last)) return false;
    for (const element of group) elements.push(element);
    groups++;
    return true;
  };
  let depth = 0;
  let inString = false;
  for (; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) throw new InvalidInputError('BODY_TOO_DEEP', `JSON is nested deeper than ${MAX_DEPTH} levels`);
    } else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) break;
    } else if (c === 0x2c && depth === 1 && i - open > groupBytes) {
      if (!parseGroup(i, false)) return null;
      open = i;
      yield;
    }
  }
  if (i >= raw.length || raw[i] !== 0x5d || !parseGroup(i, true)) return null;
  for (let j = i + 1; j < raw.length; j++) if (!isJsonSpace(raw[j])) return null; // something after the array
  return elements;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (isRawJson(value)) return 'a number';
  return `a ${typeof value}`;
}

function toPayloads(value: unknown): JsonObject[] {
  if (isJsonObject(value)) return [value];
  if (Array.isArray(value)) {
    const bad = value.findIndex((element) => !isJsonObject(element));
    if (bad >= 0) {
      throw new InvalidInputError('BODY_NOT_OBJECTS', `element ${bad} of the array is ${kindOf(value[bad])}; every element must be a JSON object`);
    }
    return value as JsonObject[];
  }
  throw new InvalidInputError('BODY_NOT_OBJECTS', `body is ${kindOf(value)}; send a JSON object or an array of objects`);
}
