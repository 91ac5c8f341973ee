import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { createTestDatabase, dropTestDatabase } from './support/database-url.js';
import { startService, stopAllServices, type ServiceProcess } from './support/service-process.js';

const ADMIN_API_KEY = `adminsecret${randomBytes(24).toString('hex')}`;
/** Shaped like a real token (prefix, length), never issued. */
const LOOKALIKE = `iit_${randomBytes(32).toString('base64url')}`;

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

describe('Secrets, security headers and error bodies (e2e, child process)', () => {
  let databaseUrl: string;
  let service: ServiceProcess;
  let output = '';
  let tableDump = '';
  const secrets: string[] = [ADMIN_API_KEY, LOOKALIKE];
  /** Every answer of the scenario below, for the header checks. */
  const answers: Array<{ label: string; answer: Answer }> = [];

  async function call(label: string, method: string, path: string, options: { auth?: string | null; body?: string | Buffer; headers?: Record<string, string> } = {}): Promise<Answer> {
    const auth = options.auth === undefined ? ADMIN_API_KEY : options.auth;
    const response = await fetch(service.baseUrl + path, {
      method,
      headers: {
        ...(auth === null ? {} : { authorization: `Bearer ${auth}` }),
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body,
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the text
    }
    const answer = { status: response.status, headers: response.headers, body };
    answers.push({ label, answer });
    return answer;
  }
  const json = (value: unknown) => JSON.stringify(value);

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    service = await startService({ DATABASE_URL: databaseUrl, ADMIN_API_KEY, LOG_LEVEL: 'verbose' });

    // Tokens: one quiet, one in debug mode, one revoked.
    const tokens: Array<{ id: string; token: string }> = [];
    for (const body of [{ name: 'quiet' }, { name: 'debugging', debug: true }, { name: 'revoked' }]) {
      const created = await call('create token', 'POST', '/api/tokens', { body: json(body) });
      expect(created.status).toBe(201);
      tokens.push(created.body);
      secrets.push(created.body.token);
      expect((await call('create filter', 'POST', '/api/filters', { body: json({ tokenId: created.body.id, template: 'zipkin-tracing' }) })).status).toBe(201);
    }
    const [quiet, debugging, revoked] = tokens;
    await call('list tokens', 'GET', '/api/tokens');
    await call('read token', 'GET', `/api/tokens/${quiet.id}`);
    await call('endpoint settings', 'GET', `/api/tokens/${debugging.id}/endpoint-settings`);
    await call('revoke', 'DELETE', `/api/tokens/${revoked.id}`);

    // Intake, accepted and rejected, debug on and off.
    const span = (traceId: string, status = 'running') => json({ traceId, name: traceId, status });
    for (const token of [quiet, debugging]) {
      expect((await call('accepted', 'POST', '/v1/trace', { auth: token.token, body: span(`s-${token.id}`) })).status).toBe(202);
      await call('accepted alert', 'POST', '/v1/alert', { auth: token.token, body: json({ title: 'Alert for "x"', body: 'b', link: 'l' }) });
      await call('accepted gzip', 'POST', '/v1/trace', { auth: token.token, body: gzipSync(span(`g-${token.id}`, 'completed')), headers: { 'content-encoding': 'gzip' } });
      expect((await call('bad JSON', 'POST', '/v1/trace', { auth: token.token, body: '{"traceId": ' })).status).toBe(400);
      expect((await call('not JSON', 'POST', '/v1/trace', { auth: token.token, body: 'hello', headers: { 'content-type': 'text/plain' } })).status).toBe(415);
      expect((await call('too large', 'POST', '/v1/trace', { auth: token.token, body: `[${' '.repeat(5_242_880)}]` })).status).toBe(413);
    }
    await call('debug on', 'PATCH', `/api/tokens/${quiet.id}`, { body: json({ debug: true }) });
    await call('accepted while debugging', 'POST', '/v1/alert', { auth: quiet.token, body: json({ title: 'Alert', body: 'b' }) });
    await call('debug off', 'PATCH', `/api/tokens/${quiet.id}`, { body: json({ debug: false }) });
    await call('read the log', 'GET', `/api/api-log?tokenId=${debugging.id}`);

    // Wrong credentials of every kind.
    expect((await call('lookalike token', 'POST', '/v1/trace', { auth: LOOKALIKE, body: span('x') })).status).toBe(401);
    expect((await call('lookalike in lower case', 'POST', '/v1/trace', { auth: null, body: span('x'), headers: { authorization: `bearer ${LOOKALIKE}` } })).status).toBe(401);
    expect((await call('revoked token', 'POST', '/v1/trace', { auth: revoked.token, body: span('x') })).status).toBe(401);
    expect((await call('admin key on intake', 'POST', '/v1/alert', { auth: ADMIN_API_KEY, body: span('x') })).status).toBe(401);
    expect((await call('token on admin', 'GET', '/api/tokens', { auth: debugging.token })).status).toBe(401);
    expect((await call('lookalike on admin', 'GET', '/api/tokens', { auth: LOOKALIKE })).status).toBe(401);
    expect((await call('admin key with junk', 'GET', '/api/tokens', { auth: `${ADMIN_API_KEY}x` })).status).toBe(401);
    expect((await call('two tokens', 'POST', '/v1/trace', { auth: `${quiet.token} ${debugging.token}`, body: span('x') })).status).toBe(401);
    // Not found, with credentials attached.
    expect((await call('unknown route', 'GET', '/v2/trace', { auth: quiet.token })).status).toBe(404);
    expect((await call('unknown route with admin key', 'POST', '/api/nothing', { body: '{}' })).status).toBe(404);
    expect((await call('unknown token id', 'GET', '/api/tokens/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await call('validation', 'POST', '/api/tokens', { body: json({ name: '', token: debugging.token }) })).status).toBe(400);

    // Stop the service so that every line it would write is written, then read the database.
    expect(await service.stop()).toBe(0);
    output = service.output();
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const tables = (await db.query(`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`)).rows.map((r) => r.table_name as string);
      expect(tables).toEqual(expect.arrayContaining(['api_tokens', 'filters', 'incidents', 'api_log']));
      for (const table of tables) {
        const { rows } = await db.query(`select t::text as row from "${table}" t`);
        tableDump += `${table}:\n${rows.map((r) => r.row).join('\n')}\n`;
      }
      // The scenario did reach the database (the debug token's calls were logged).
      expect((await db.query('select count(*)::int as n from api_log')).rows[0].n).toBeGreaterThanOrEqual(6);
    } finally {
      await db.end();
    }
  }, 90_000);

  afterAll(async () => {
    await stopAllServices();
    if (databaseUrl) await dropTestDatabase(databaseUrl);
  });

  /** A secret and the parts of it that identify it on their own. */
  const forms = (secret: string) => (secret.startsWith('iit_') ? [secret, secret.slice(4)] : [secret]);

  it('wrote output at verbose level, for the checks below to mean something', () => {
    expect(output).toContain('listening on');
    expect(output.length).toBeGreaterThan(500);
    expect(secrets).toHaveLength(5);
  });

  it('never prints the admin key or a token secret', () => {
    for (const secret of secrets) {
      for (const form of forms(secret)) expect(output.includes(form) ? `${form} in the output` : null).toBeNull();
    }
  });

  it('never stores the admin key or a token secret in any table', () => {
    expect(tableDump.length).toBeGreaterThan(1000);
    for (const secret of secrets) {
      for (const form of forms(secret)) expect(tableDump.includes(form) ? `${form} in the database: ${tableDump.slice(tableDump.indexOf(form) - 200, tableDump.indexOf(form) + 60)}` : null).toBeNull();
    }
  });

  it('sends security headers on every answer and no X-Powered-By', () => {
    expect(answers.length).toBeGreaterThan(20);
    for (const { label, answer } of answers) {
      expect({ label, nosniff: answer.headers.get('x-content-type-options') }).toEqual({ label, nosniff: 'nosniff' });
      expect({ label, poweredBy: answer.headers.get('x-powered-by') }).toEqual({ label, poweredBy: null });
    }
  });

  describe('with the service running again', () => {
    beforeAll(async () => {
      service = await startService({ DATABASE_URL: databaseUrl, ADMIN_API_KEY });
    }, 60_000);

    it('answers a CORS preflight from another origin without allowing it', async () => {
      const preflight = await call('preflight', 'OPTIONS', '/api/tokens', {
        auth: null,
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
      const read = await call('cross-origin read', 'GET', '/api/tokens', { headers: { origin: 'https://evil.example' } });
      expect(read.status).toBe(200);
      expect(read.headers.get('access-control-allow-origin')).toBeNull();
    });

    const token = async () => (await call('token', 'POST', '/api/tokens', { body: json({ name: 'errors' }) })).body.token as string;

    it.each([
      ['400 malformed intake JSON', async () => call('', 'POST', '/v1/trace', { auth: await token(), body: '{"a":' }), 400, 'JSON_INVALID'],
      ['400 malformed admin JSON', async () => call('', 'POST', '/api/tokens', { body: '{"a":' }), 400, 'JSON_INVALID'],
      ['400 validation', async () => call('', 'POST', '/api/tokens', { body: json({ name: '' }) }), 400, 'VALIDATION_FAILED'],
      ['401 intake', async () => call('', 'POST', '/v1/trace', { auth: LOOKALIKE, body: '{}' }), 401, 'TOKEN_INVALID'],
      ['401 admin', async () => call('', 'GET', '/api/filters', { auth: null }), 401, 'AUTH_MISSING'],
      ['404 unknown route', async () => call('', 'GET', '/api/../../etc/passwd'), 404, 'ROUTE_NOT_FOUND'],
      ['404 unknown id', async () => call('', 'GET', '/api/incidents/nope'), 404, 'INCIDENT_NOT_FOUND'],
      ['413 intake', async () => call('', 'POST', '/v1/alert', { auth: await token(), body: `[${' '.repeat(5_242_880)}]` }), 413, 'PAYLOAD_TOO_LARGE'],
      ['413 admin', async () => call('', 'POST', '/api/tokens', { body: `{"name":"x"${' '.repeat(5_242_880)}}` }), 413, 'PAYLOAD_TOO_LARGE'],
      ['415 intake', async () => call('', 'POST', '/v1/alert', { auth: await token(), body: '{}', headers: { 'content-type': 'text/xml' } }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['415 admin', async () => call('', 'POST', '/api/tokens', { body: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ] as Array<[string, () => Promise<Answer>, number, string]>)('answers %s with exactly the documented keys and no internals', async (_, make, status, code) => {
      const answer = await make();
      expect(answer.status).toBe(status);
      expect(answer.body).toMatchObject({ statusCode: status, error: STATUS_CODES[status], code });
      expect(Object.keys(answer.body).sort()).toEqual(['code', 'error', 'message', 'statusCode', ...(code === 'VALIDATION_FAILED' ? ['details'] : [])].sort());
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      const text = JSON.stringify(answer.body);
      expect(text).not.toMatch(/stack|node_modules|\/work\/|\.[jt]s:\d+|\n\s+at /);
    });
  });
});
