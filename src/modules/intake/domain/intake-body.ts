import { gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from '../../../shared/errors/body-errors.js';
import { InvalidInputError } from '../../../shared/errors/domain-error.js';
import { MAX_BODY_BYTES } from '../../../shared/http/limits.js';
import type { JsonObject } from '../contracts.js';
import { isJsonObject, isRawJson, parseJsonPreservingNumbers } from '../../../shared/json/json-text.js';

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

/**
 * The payloads of an intake body: checks the media type, decompresses, enforces the size limit,
 * decodes UTF-8 and parses JSON (numbers keep their digits). An object is one payload; an array is
 * one payload per element, each of which must be an object. `onText` receives the body's text as
 * soon as it is known (for the API log), also when the body is then rejected, and again once it is
 * known to be JSON.
 */
export function decodeIntakeBody(bytes: Buffer, headers: IntakeHeaders, onText: (text: string, isJson: boolean) => void = () => undefined): JsonObject[] {
  if (!isJsonMediaType(headers.contentType)) {
    onText(bytes.toString('utf8'), false);
    const given = headers.contentType ? `got ${headers.contentType.slice(0, 100)}` : 'the header is missing';
    throw new UnsupportedMediaTypeError(`Content-Type must be application/json; ${given}`);
  }
  if (bytes.length > MAX_BODY_BYTES) throw new PayloadTooLargeError(`body exceeds ${MAX_BODY_BYTES} bytes`);
  const raw = decompress(bytes, headers.contentEncoding);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    onText(raw.toString('utf8'), false);
    throw new InvalidInputError('BODY_NOT_UTF8', 'body is not valid UTF-8');
  }
  onText(text, false);
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
  onText(text, true);
  return toPayloads(value);
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
