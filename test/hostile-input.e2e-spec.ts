import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Agent, request, STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import { deflateSync, gzipSync } from 'node:zlib';
import { ADMIN_KEY, TestApp } from './support/test-app.js';

const LIMIT = 5_242_880;
const UNKNOWN_UUID = '00000000-0000-4000-8000-000000000000';

interface Raw {
  method?: string;
  path: string;
  /** Sent exactly as given (node:http: no normalisation, no extra headers). */
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body in chunks without Content-Length. */
  chunked?: boolean;
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  body: any;
  /** The answer came before the whole body was written. */
  early: boolean;
}

/** Secrets and ids the cases need, known once beforeAll has run. */
interface Ctx {
  token: string;
  tokenId: string;
  revoked: string;
  filterId: string;
  incidentId: string;
}

interface Case {
  name: string;
  req: (c: Ctx) => Raw;
  status: number;
  code: string;
}

describe('Hostile input (e2e)', () => {
  let t: TestApp;
  let port: number;
  const ctx = {} as Ctx;
  // Keep-alive, like real senders: an answer sent before the body has arrived would cost the
  // connection, and the sender would see EPIPE instead of the status.
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeAll(async () => {
    t = await TestApp.start();
    port = Number(new URL(t.baseUrl).port);
    const token = await t.createToken('hostile');
    const revoked = await t.createToken('revoked');
    await t.call('DELETE', `/api/tokens/${revoked.id}`);
    const filter = await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } });
    const opened = await post({ traceId: 'seed', name: 'seed', status: 'running' }, token.secret);
    Object.assign(ctx, { token: token.secret, tokenId: token.id, revoked: revoked.secret, filterId: filter.body.id, incidentId: opened.body.payloads[0].filters[0].incidentId });
  });
  afterAll(async () => {
    agent.destroy();
    await t.close();
  });

  /**
   * Sends the request; a body over 1 MB goes out in pieces after a pause, so that an answer sent
   * before the whole body has arrived shows (`early`): a sender writing its body first would see
   * EPIPE instead of the status.
   */
  function send(raw: Raw): Promise<Answer> {
    return new Promise((resolve, reject) => {
      let written = false;
      const req = request({ host: '127.0.0.1', port, method: raw.method ?? 'POST', path: raw.path, headers: raw.headers ?? {}, agent }, (res) => {
        const early = !written;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {
            // keep the text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body, early });
        });
      });
      req.on('error', reject);
      const body = raw.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(raw.body) ? raw.body : Buffer.from(raw.body, 'utf8');
      if (!raw.chunked && raw.body !== undefined) req.setHeader('content-length', body.length);
      if (body.length <= 1 << 20) {
        written = true;
        req.end(raw.body === undefined ? undefined : body);
        return;
      }
      req.write(body.subarray(0, 1 << 16));
      setTimeout(() => {
        for (let i = 1 << 16; i < body.length; i += 1 << 20) req.write(body.subarray(i, i + (1 << 20)));
        req.end(() => (written = true));
      }, 200);
    });
  }

  const post = (payload: unknown, secret: string, path = '/v1/trace') =>
    send({ path, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  const admin = (method: string, path: string, body?: unknown) =>
    send({ method, path, headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });

  /** Every row that matters, except api_tokens.last_used_at (moved by any authenticated call). */
  async function snapshot() {
    const { rows } = await t.db.query(`select
      (select count(*)::int from incidents) as incidents,
      (select count(*)::int from filters) as filters,
      (select count(*)::int from api_tokens) as api_tokens,
      (select count(*)::int from api_log) as api_log,
      (select md5(coalesce(string_agg(i::text, '|' order by id), '')) from incidents i) as incidents_rows,
      (select md5(coalesce(string_agg(f::text, '|' order by id), '')) from filters f) as filters_rows,
      (select md5(coalesce(string_agg(concat_ws(',', id, name, secret_hash, debug_enabled_at, debug_expires_at, rate_limit_per_minute, revoked_at), '|' order by id), '')) from api_tokens) as token_rows`);
    return rows[0];
  }

  // Intake with the valid (non-debug) token, JSON content type.
  const intake = (body: string | Buffer, extra: Record<string, string> = {}, path = '/v1/trace') => (c: Ctx): Raw => ({
    path,
    headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json', ...extra },
    body,
  });
  const withAuth = (authorization: string | null, path = '/v1/trace', body = '{"status":"running","traceId":"auth","name":"auth"}') => (): Raw => ({
    path,
    headers: { ...(authorization === null ? {} : { authorization }), 'content-type': 'application/json' },
    body,
  });
  const withAuthOf = (make: (c: Ctx) => string, path = '/v1/trace') => (c: Ctx): Raw => withAuth(make(c), path)();
  const get = (path: string) => (): Raw => ({ method: 'GET', path, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
  const adminBody = (method: string, path: (c: Ctx) => string, body: string, type = 'application/json') => (c: Ctx): Raw => ({
    method,
    path: path(c),
    headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': type },
    body,
  });
  /** A JSON array holding one span, padded with spaces to exactly `bytes` bytes. */
  const padded = (bytes: number) => {
    const json = JSON.stringify({ traceId: 'big', name: 'big', status: 'running' });
    return `[${json}${' '.repeat(bytes - json.length - 2)}]`;
  };
  const bomb = `[{"traceId":"bomb","name":"bomb","status":"running"}${' '.repeat(LIMIT)}]`;
  const fakeToken = `iit_${randomBytes(32).toString('base64url')}`;

  const malformedJson: Array<[string, string]> = [
    ['a trailing comma', '{"status":"running","traceId":"x",}'],
    ['single quotes', "{'status':'running'}"],
    ['unquoted keys', '{status:"running"}'],
    ['NaN', '{"duration":NaN,"status":"running"}'],
    ['Infinity', '{"duration":Infinity}'],
    ['-Infinity', '{"duration":-Infinity}'],
    ['a block comment', '{"status":"running" /* c */}'],
    ['a line comment', '{"status":"running"} // c'],
    ['a truncated object', '{"status":"running","traceId":'],
    ['a truncated string', '{"status":"runn'],
    ['two top-level values', '{"status":"running"}{"status":"running"}'],
    ['two top-level arrays', '[{}][{}]'],
    ['a BOM then junk', '\uFEFFjunk'],
    ['a lone brace', '{'],
    ['a closing brace', '}'],
    ['mismatched brackets', '[{"a":1}}'],
    ['undefined', '{"a":undefined}'],
    ['a hex number', '{"a":0x10}'],
    ['a leading zero', '{"a":01}'],
    ['a missing colon', '{"a" 1}'],
    ['an invalid escape', '{"a":"\\x41"}'],
    ['a raw tab inside a string', '{"a":"x\ty"}'],
    ['a raw NUL byte inside a string', '{"a":"x\u0000y"}'],
    ['a raw NUL byte after the object', '{"a":1}\u0000'],
    ['a JavaScript object literal', '({a: 1})'],
  ];
  const notObjects: Array<[string, string]> = [
    ['a string', '"running"'],
    ['a number', '42'],
    ['a huge number', '1e999'],
    ['null', 'null'],
    ['true', 'true'],
    ['false', 'false'],
    ['an array of numbers', '[1,2,3]'],
    ['an array of strings', '["a"]'],
    ['an array holding null', '[null]'],
    ['nested arrays', '[[{"status":"running"}]]'],
    ['an empty nested array', '[[]]'],
    ['objects then a number', '[{"status":"running","traceId":"half"},1]'],
  ];
  const badTypes: Array<[string, Record<string, string>]> = [
    ['text/plain', { 'content-type': 'text/plain' }],
    ['application/x-www-form-urlencoded', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['multipart/form-data', { 'content-type': 'multipart/form-data; boundary=xyz' }],
    ['application/jsonp', { 'content-type': 'application/jsonp' }],
    ['application/json-patch', { 'content-type': 'application/json-patch' }],
    ['text/json', { 'content-type': 'text/json' }],
    ['application/xml', { 'content-type': 'application/xml' }],
    ['application/octet-stream', { 'content-type': 'application/octet-stream' }],
  ];

  const cases: Case[] = [
    ...malformedJson.map(([name, body]): Case => ({ name: `malformed JSON: ${name}`, req: intake(body), status: 400, code: 'JSON_INVALID' })),
    ...notObjects.map(([name, body]): Case => ({ name: `a body that is ${name}`, req: intake(body), status: 400, code: 'BODY_NOT_OBJECTS' })),
    { name: 'an empty body', req: intake(''), status: 400, code: 'BODY_EMPTY' },
    { name: 'a body of whitespace', req: intake(' \n\t '), status: 400, code: 'BODY_EMPTY' },
    { name: 'an empty body on /v1/alert', req: intake('', {}, '/v1/alert'), status: 400, code: 'BODY_EMPTY' },
    ...badTypes.map(([name, headers]): Case => ({
      name: `the content type ${name}`,
      req: (c) => ({ path: '/v1/trace', headers: { authorization: `Bearer ${c.token}`, ...headers }, body: '{"status":"running","traceId":"ct","name":"ct"}' }),
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    })),
    {
      name: 'no content type',
      req: (c) => ({ path: '/v1/alert', headers: { authorization: `Bearer ${c.token}` }, body: '{"title":"Alert"}' }),
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    },
    { name: '5242880 + 1 bytes', req: intake(padded(LIMIT + 1)), status: 413, code: 'PAYLOAD_TOO_LARGE' },
    { name: '5242880 + 1 bytes, chunked (no Content-Length)', req: (c) => ({ ...intake(padded(LIMIT + 1))(c), chunked: true }), status: 413, code: 'PAYLOAD_TOO_LARGE' },
    { name: 'a gzip body expanding past 5242880 bytes', req: intake(gzipSync(bomb), { 'content-encoding': 'gzip' }), status: 413, code: 'PAYLOAD_TOO_LARGE' },
    { name: 'a deflate body expanding past 5242880 bytes', req: intake(deflateSync(bomb), { 'content-encoding': 'deflate' }), status: 413, code: 'PAYLOAD_TOO_LARGE' },
    { name: 'corrupt gzip', req: intake(Buffer.from('definitely not gzip'), { 'content-encoding': 'gzip' }), status: 400, code: 'BODY_ENCODING_INVALID' },
    { name: 'truncated gzip', req: intake(gzipSync('{"status":"running"}').subarray(0, 15), { 'content-encoding': 'gzip' }), status: 400, code: 'BODY_ENCODING_INVALID' },
    { name: 'plain JSON labelled gzip', req: intake('{"status":"running"}', { 'content-encoding': 'gzip' }), status: 400, code: 'BODY_ENCODING_INVALID' },
    { name: 'corrupt deflate', req: intake(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x00]), { 'content-encoding': 'deflate' }), status: 400, code: 'BODY_ENCODING_INVALID' },
    { name: 'gzip of invalid JSON', req: intake(gzipSync('{"status":'), { 'content-encoding': 'gzip' }), status: 400, code: 'JSON_INVALID' },
    ...['br', 'compress', 'zstd', 'gzip, gzip', 'x-unknown'].map((encoding): Case => ({
      name: `the Content-Encoding ${encoding}`,
      req: intake('{"status":"running"}', { 'content-encoding': encoding }),
      status: 415,
      code: 'UNSUPPORTED_MEDIA_TYPE',
    })),
    { name: 'arrays nested 100000 levels deep', req: intake('['.repeat(100_000) + ']'.repeat(100_000)), status: 400, code: 'BODY_TOO_DEEP' },
    { name: 'objects nested 100000 levels deep', req: intake('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)), status: 400, code: 'BODY_TOO_DEEP' },
    { name: 'an unterminated 100000-level nesting', req: intake('['.repeat(100_000)), status: 400, code: 'BODY_TOO_DEEP' },
    { name: 'nesting 257 levels deep', req: intake(`{"status":"running","n":${'['.repeat(256)}${']'.repeat(256)}}`), status: 400, code: 'BODY_TOO_DEEP' },
    ...([
      ['a 0xff byte', [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]],
      ['an overlong encoding', [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0xaf, 0x22, 0x7d]],
      ['a truncated sequence', [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x82, 0x22, 0x7d]],
      ['an encoded surrogate', [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]],
      ['Latin-1 text', [...Buffer.from('{"a":"caf'), 0xe9, ...Buffer.from('"}')]],
      ['UTF-16 with a byte-order mark', [...Buffer.from('\uFEFF{"a":"b"}', 'utf16le')]],
    ] as Array<[string, number[]]>).map(([name, bytes]): Case => ({ name: `invalid UTF-8: ${name}`, req: intake(Buffer.from(bytes)), status: 400, code: 'BODY_NOT_UTF8' })),

    // Authorization: every bad shape is a 401 with WWW-Authenticate, whatever the body.
    { name: 'no Authorization header', req: withAuth(null), status: 401, code: 'AUTH_MISSING' },
    { name: 'no Authorization header and malformed JSON', req: withAuth(null, '/v1/trace', '{"a":'), status: 401, code: 'AUTH_MISSING' },
    { name: 'an empty Authorization header', req: withAuth(''), status: 401, code: 'AUTH_MISSING' },
    { name: '"Bearer" alone', req: withAuth('Bearer'), status: 401, code: 'AUTH_INVALID' },
    { name: '"Bearer" and spaces', req: withAuth('Bearer    '), status: 401, code: 'AUTH_INVALID' },
    { name: 'the Basic scheme', req: withAuth('Basic dXNlcjpwYXNz'), status: 401, code: 'AUTH_SCHEME' },
    { name: 'the Token scheme with a valid token', req: withAuthOf((c) => `Token ${c.token}`), status: 401, code: 'AUTH_SCHEME' },
    { name: 'the token without a scheme', req: withAuthOf((c) => c.token), status: 401, code: 'AUTH_INVALID' },
    { name: 'two tokens', req: withAuthOf((c) => `Bearer ${c.token} ${c.token}`), status: 401, code: 'AUTH_INVALID' },
    { name: 'two bearer credentials, comma-separated', req: withAuthOf((c) => `Bearer ${c.token}, Bearer ${c.token}`), status: 401, code: 'AUTH_INVALID' },
    { name: 'a tab after the scheme', req: withAuthOf((c) => `Bearer\t${c.token}`), status: 401, code: 'AUTH_INVALID' },
    { name: 'a token with trailing junk', req: withAuthOf((c) => `Bearer ${c.token}x`), status: 401, code: 'TOKEN_INVALID' },
    { name: 'a token with a trailing semicolon', req: withAuthOf((c) => `Bearer ${c.token};`), status: 401, code: 'TOKEN_INVALID' },
    { name: 'a token missing its last character', req: withAuthOf((c) => `Bearer ${c.token.slice(0, -1)}`), status: 401, code: 'TOKEN_INVALID' },
    { name: 'a token in the wrong case', req: withAuthOf((c) => `Bearer ${c.token.toUpperCase()}`), status: 401, code: 'TOKEN_INVALID' },
    { name: 'an unknown token that looks real', req: withAuth(`Bearer ${fakeToken}`), status: 401, code: 'TOKEN_INVALID' },
    { name: 'a Latin-1 character in the token', req: withAuthOf((c) => `Bearer ${c.token.slice(0, -1)}\u00e9`), status: 401, code: 'AUTH_INVALID' },
    { name: 'the admin key on /v1/trace', req: withAuth(`Bearer ${ADMIN_KEY}`), status: 401, code: 'TOKEN_INVALID' },
    { name: 'the admin key on /v1/alert', req: withAuth(`Bearer ${ADMIN_KEY}`, '/v1/alert'), status: 401, code: 'TOKEN_INVALID' },
    { name: 'a revoked token', req: withAuthOf((c) => `Bearer ${c.revoked}`), status: 401, code: 'TOKEN_INVALID' },
    { name: 'an 8 KB Authorization header', req: withAuth(`Bearer ${'a'.repeat(8192)}`), status: 401, code: 'TOKEN_INVALID' },
    { name: 'an API token on /api/tokens', req: (c) => ({ method: 'GET', path: '/api/tokens', headers: { authorization: `Bearer ${c.token}` } }), status: 401, code: 'ADMIN_KEY_INVALID' },
    {
      name: 'an API token creating a token',
      req: (c) => ({ method: 'POST', path: '/api/tokens', headers: { authorization: `Bearer ${c.token}`, 'content-type': 'application/json' }, body: '{"name":"sneaky"}' }),
      status: 401,
      code: 'ADMIN_KEY_INVALID',
    },
    { name: 'no Authorization header on /api/filters', req: () => ({ method: 'GET', path: '/api/filters' }), status: 401, code: 'AUTH_MISSING' },
    { name: 'the admin key with trailing junk', req: () => ({ method: 'GET', path: '/api/incidents', headers: { authorization: `Bearer ${ADMIN_KEY}x` } }), status: 401, code: 'ADMIN_KEY_INVALID' },

    // Admin bodies: prototype keys are refused by the admin parser.
    { name: 'an admin body with __proto__', req: adminBody('POST', () => '/api/tokens', '{"name":"p","__proto__":{"debug":true}}'), status: 400, code: 'JSON_INVALID' },
    { name: 'an admin body with constructor.prototype', req: adminBody('POST', () => '/api/tokens', '{"name":"p","constructor":{"prototype":{"debug":true}}}'), status: 400, code: 'JSON_INVALID' },
    { name: 'a token update with __proto__', req: adminBody('PATCH', (c) => `/api/tokens/${c.tokenId}`, '{"__proto__":{"debug":true}}'), status: 400, code: 'JSON_INVALID' },
    {
      name: 'a filter with __proto__ in its trigger',
      req: (c) => adminBody('POST', () => '/api/filters', `{"tokenId":"${c.tokenId}","template":"zipkin-tracing","trigger":{"__proto__":{"payloadKey":"x"}}}`)(c),
      status: 400,
      code: 'JSON_INVALID',
    },
    { name: 'a dry run payload with __proto__', req: adminBody('POST', (c) => `/api/filters/${c.filterId}/test`, '{"payload":{"__proto__":{"polluted":"yes"}}}'), status: 400, code: 'JSON_INVALID' },
    { name: 'malformed admin JSON', req: adminBody('POST', () => '/api/tokens', '{"name":"x",}'), status: 400, code: 'JSON_INVALID' },
    { name: 'an admin body that is not JSON', req: adminBody('POST', () => '/api/tokens', 'name=x', 'text/plain'), status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' },
    { name: 'an admin body of 5242880 + 1 bytes', req: adminBody('POST', () => '/api/tokens', `{"name":"x"${' '.repeat(LIMIT + 1 - 12)}}`), status: 413, code: 'PAYLOAD_TOO_LARGE' },
    { name: 'a NUL character in a token name', req: adminBody('POST', () => '/api/tokens', '{"name":"a\\u0000b"}'), status: 400, code: 'BODY_NUL_CHARACTER' },
    { name: 'a NUL character in a token rename', req: adminBody('PATCH', (c) => `/api/tokens/${c.tokenId}`, '{"name":"\\u0000"}'), status: 400, code: 'BODY_NUL_CHARACTER' },
    {
      name: 'a NUL character in a filter value',
      req: (c) => adminBody('POST', () => '/api/filters', `{"tokenId":"${c.tokenId}","trigger":{"payloadKey":"a\\u0000","valueContains":"b","titleFrom":"c"}}`)(c),
      status: 400,
      code: 'BODY_NUL_CHARACTER',
    },
    { name: 'a NUL character in a key of a filter edit', req: adminBody('PATCH', (c) => `/api/filters/${c.filterId}`, '{"name\\u0000":"x"}'), status: 400, code: 'BODY_NUL_CHARACTER' },

    // SQL in query strings and ids.
    { name: "SQL in ?tokenId of /api/incidents", req: get("/api/incidents?tokenId='%20or%201=1%20--"), status: 400, code: 'VALIDATION_FAILED' },
    { name: "SQL in ?tokenId of /api/filters", req: get("/api/filters?tokenId='%20or%201=1%20--"), status: 400, code: 'VALIDATION_FAILED' },
    { name: "SQL in ?tokenId of /api/api-log", req: get("/api/api-log?tokenId='%20or%201=1%20--"), status: 400, code: 'VALIDATION_FAILED' },
    { name: 'SQL in ?status of /api/incidents', req: get("/api/incidents?status=open'%20or%20'1'='1"), status: 400, code: 'VALIDATION_FAILED' },
    { name: 'SQL in a token id', req: get('/api/tokens/1%27%20or%20%271%27=%271'), status: 404, code: 'TOKEN_NOT_FOUND' },
    { name: 'SQL in an incident id', req: get('/api/incidents/1%27;%20drop%20table%20incidents;%20--'), status: 404, code: 'INCIDENT_NOT_FOUND' },

    // limit and cursor on every list endpoint.
    ...['/api/tokens', '/api/filters', '/api/incidents', '/api/api-log'].flatMap((list) => [
      ...['0', '501', '-1', '1.5', 'abc', '', '1;1'].map((limit): Case => ({ name: `${list}?limit=${limit}`, req: get(`${list}?limit=${limit}`), status: 400, code: 'VALIDATION_FAILED' })),
      { name: `${list}?cursor=garbage`, req: get(`${list}?cursor=garbage!!`), status: 400, code: 'CURSOR_INVALID' },
      {
        name: `${list} with a base64 cursor of a non-uuid id`,
        req: get(`${list}?cursor=${Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', "1' or '1'='1"])).toString('base64url')}`),
        status: 400,
        code: 'CURSOR_INVALID',
      },
      { name: `${list} with a base64 cursor of an object`, req: get(`${list}?cursor=${Buffer.from('{"id":1}').toString('base64url')}`), status: 400, code: 'CURSOR_INVALID' },
    ]),

    // Malformed (and unknown) ids on every {id} route.
    ...(
      [
        ['GET', '/api/tokens/{id}', 'TOKEN_NOT_FOUND'],
        ['PATCH', '/api/tokens/{id}', 'TOKEN_NOT_FOUND', '{"name":"renamed"}'],
        ['DELETE', '/api/tokens/{id}', 'TOKEN_NOT_FOUND'],
        ['GET', '/api/tokens/{id}/endpoint-settings', 'TOKEN_NOT_FOUND'],
        ['GET', '/api/filters/{id}', 'FILTER_NOT_FOUND'],
        ['PATCH', '/api/filters/{id}', 'FILTER_NOT_FOUND', '{"name":"renamed"}'],
        ['DELETE', '/api/filters/{id}', 'FILTER_NOT_FOUND'],
        ['POST', '/api/filters/{id}/test', 'FILTER_NOT_FOUND', '{"payload":{"status":"running"}}'],
        ['POST', '/api/filters/{id}/backtest', 'FILTER_NOT_FOUND', '{}'],
        ['GET', '/api/incidents/{id}', 'INCIDENT_NOT_FOUND'],
        ['POST', '/api/incidents/{id}/resolve', 'INCIDENT_NOT_FOUND'],
        ['GET', '/api/api-log/{id}', 'API_LOG_ENTRY_NOT_FOUND'],
      ] as Array<[string, string, string, string?]>
    ).flatMap(([method, route, code, body]) =>
      ['nope', '123', '0000000-0000-4000-8000-000000000000', `${UNKNOWN_UUID}0`, '%00', UNKNOWN_UUID].map((id): Case => ({
        name: `${method} ${route.replace('{id}', id)}`,
        req: () => ({
          method,
          path: route.replace('{id}', id),
          headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body,
        }),
        status: 404,
        code,
      })),
    ),
  ];

  it('has at least 60 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it.each(cases.map((c) => [c.name, c] as const))('rejects %s and writes nothing', async (_, c) => {
    const before = await snapshot();
    const answer = await send(c.req(ctx));
    expect(answer.status).toBe(c.status);
    expect(answer.early).toBe(false);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(answer.body).toMatchObject({ statusCode: c.status, error: STATUS_CODES[c.status], code: c.code, message: expect.any(String) });
    expect(answer.body.message.length).toBeGreaterThan(0);
    const keys = ['code', 'error', 'message', 'statusCode', ...(c.code === 'VALIDATION_FAILED' ? ['details'] : [])].sort();
    expect(Object.keys(answer.body).sort()).toEqual(keys);
    if (c.status === 401) expect(answer.headers['www-authenticate']).toMatch(/^Bearer\b/);
    expect(await snapshot()).toEqual(before);
    // The token is not in debug mode: nothing is logged either.
    expect(before.api_log).toBe(0);
  });

  describe('accepted hostile input', () => {
    const incident = async (id: string) => (await admin('GET', `/api/incidents/${id}`)).body;

    it('accepts the bearer scheme in lower case', async () => {
      const answer = await send(withAuthOf((c) => `bearer ${c.token}`)(ctx));
      expect(answer.status).toBe(202);
      expect(answer.headers['www-authenticate']).toBeUndefined();
    });

    it('accepts a UTF-8 byte-order mark before a valid body', async () => {
      const answer = await send(intake('\uFEFF{"traceId":"bom","name":"bom","status":"running"}')(ctx));
      expect(answer.status).toBe(202);
      expect((await incident(answer.body.payloads[0].filters[0].incidentId)).title).toBe('bom');
    });

    it('accepts a payload with 100000 keys and stays responsive', async () => {
      const payload: Record<string, unknown> = { traceId: 'wide', name: 'wide', status: 'running' };
      for (let i = 0; i < 100_000; i++) payload[`k${i}`] = i;
      const answer = await post(payload, ctx.token);
      expect(answer.status).toBe(202);
      const opened = await incident(answer.body.payloads[0].filters[0].incidentId);
      // zipkin-tracing describes by `duration`, absent here: the payload's JSON, cut to 100,000 characters.
      expect(opened.description).toHaveLength(100_000);
      expect(opened.description.startsWith('{"traceId":"wide","name":"wide","status":"running","k0":0,')).toBe(true);
      const [health, next] = await Promise.all([send({ method: 'GET', path: '/health' }), post({ traceId: 'after-wide', name: 'n', status: 'running' }, ctx.token)]);
      expect(health.status).toBe(200);
      expect(next.status).toBe(202);
    });

    it('stores SQL and script text verbatim', async () => {
      const title = "'; drop table incidents; --";
      const description = '<script>alert(1)</script>';
      const traceId = "1' or '1'='1";
      const answer = await post({ traceId, name: title, duration: description, status: 'running' }, ctx.token);
      expect(answer.status).toBe(202);
      const read = await admin('GET', `/api/incidents/${answer.body.payloads[0].filters[0].incidentId}`);
      expect(read.headers['content-type']).toMatch(/^application\/json/);
      expect(read.body).toMatchObject({ title, description, mappedValue: traceId, status: 'open' });
      // The completion finds it by the same text, and nothing else was touched.
      const done = await post({ traceId, status: 'completed' }, ctx.token);
      expect(done.body.payloads[0].filters[0]).toMatchObject({ action: 'resolved', incidentId: read.body.id });
      expect((await incident(ctx.incidentId)).status).toBe('open');
      expect(await t.count('incidents')).toBeGreaterThan(1);
    });

    it('cuts a 1 MB title to 1000 characters', async () => {
      const answer = await post({ traceId: 'megabyte', name: 'é'.repeat(1_000_000), status: 'running' }, ctx.token);
      expect(answer.status).toBe(202);
      expect((await incident(answer.body.payloads[0].filters[0].incidentId)).title).toBe('é'.repeat(1000));
    });

    it('accepts NUL characters in values, stored as U+FFFD, and still correlates by them', async () => {
      const answer = await send(intake('{"traceId":"nul\\u0000id","name":"a\\u0000b","duration":"d\\u0000","status":"running"}')(ctx));
      expect(answer.status).toBe(202);
      const id = answer.body.payloads[0].filters[0].incidentId;
      expect(await incident(id)).toMatchObject({ title: 'a\uFFFDb', description: 'd\uFFFD', mappedValue: 'nul\uFFFDid', status: 'open' });
      const again = await send(intake('{"traceId":"nul\\u0000id","name":"a","status":"running"}')(ctx));
      expect(again.body.payloads[0].filters[0]).toMatchObject({ action: 'deduplicated', incidentId: id });
      const done = await send(intake('{"traceId":"nul\\u0000id","status":"completed"}')(ctx));
      expect(done.status).toBe(202);
      expect(done.body.payloads[0].filters[0]).toMatchObject({ action: 'resolved', incidentId: id });
    });

    it('logs a debug token\'s rejected call whose error quotes a NUL byte', async () => {
      const token = await t.createToken('nul-debug', { debug: true });
      for (const body of ['nul\u0000l', 'x\u0000']) {
        const answer = await send({ path: '/v1/trace', headers: { authorization: `Bearer ${token.secret}`, 'content-type': 'application/json' }, body });
        expect(answer.status).toBe(400);
        expect(answer.body.code).toBe('JSON_INVALID');
      }
      const log = await admin('GET', `/api/api-log?tokenId=${token.id}`);
      expect(log.body.items.map((e: any) => [e.statusCode, e.bodyKind, e.body, e.error.code])).toEqual([
        [400, 'text', 'x\uFFFD', 'JSON_INVALID'],
        [400, 'text', 'nul\uFFFDl', 'JSON_INVALID'],
      ]);
      expect(log.body.items.every((e: any) => !e.error.message.includes('\u0000'))).toBe(true);
    });

    it('treats __proto__ and constructor.prototype in a payload as own keys and pollutes nothing', async () => {
      const token = await t.createToken('prototype');
      const filter = async (payloadKey: string) =>
        (await admin('POST', '/api/filters', { tokenId: token.id, name: payloadKey, trigger: { payloadKey, valueContains: 'yes', titleFrom: 'name' } })).body.id as string;
      const viaProto = await filter('__proto__.polluted');
      const viaConstructor = await filter('constructor.prototype.polluted');
      const plain = await filter('polluted');
      const actions = (answer: Answer) => Object.fromEntries(answer.body.payloads[0].filters.map((f: { filterId: string; action: string }) => [f.filterId, f.action]));

      const hostile = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"status":"running","traceId":"proto","name":"proto"}';
      const first = await send({ path: '/v1/alert', headers: { authorization: `Bearer ${token.secret}`, 'content-type': 'application/json' }, body: hostile });
      expect(first.status).toBe(202);
      expect(actions(first)).toEqual({ [viaProto]: 'created', [viaConstructor]: 'created', [plain]: 'unmatched' });
      // The description is the payload's JSON, __proto__ included as an ordinary key.
      const stored = JSON.parse((await incident(first.body.payloads[0].filters.find((f: { filterId: string }) => f.filterId === viaProto).incidentId)).description);
      expect(Object.hasOwn(stored, '__proto__')).toBe(true);
      expect(stored.__proto__).toEqual({ polluted: 'yes' });

      // The same through the number-preserving parse (a number that does not round-trip as a double).
      const slowPath = await send({ path: '/v1/alert', headers: { authorization: `Bearer ${token.secret}`, 'content-type': 'application/json' }, body: hostile.replace('"status"', '"duration":1.50,"status"') });
      expect(actions(slowPath)).toEqual({ [viaProto]: 'created', [viaConstructor]: 'created', [plain]: 'unmatched' });

      // Ordinary payloads afterwards see no inherited `polluted`.
      for (const body of ['{"status":"running","name":"normal"}', '[{"name":"a"},{"name":"b","nested":{}}]']) {
        const answer = await send({ path: '/v1/alert', headers: { authorization: `Bearer ${token.secret}`, 'content-type': 'application/json' }, body });
        expect(answer.status).toBe(202);
        for (const payload of answer.body.payloads) {
          expect(payload.filters.map((f: { action: string }) => f.action)).toEqual(['unmatched', 'unmatched', 'unmatched']);
        }
      }
      const dryRun = await admin('POST', `/api/filters/${plain}/test`, { payload: { name: 'normal' } });
      expect(dryRun.body).toMatchObject({ action: 'none', trigger: { matched: false, reason: expect.stringContaining('absent') } });
      const nested = await admin('POST', `/api/filters/${viaProto}/test`, { payload: { name: 'normal', status: 'running' } });
      expect(nested.body).toMatchObject({ action: 'none', trigger: { matched: false } });
    });
  });
});
