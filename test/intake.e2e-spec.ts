import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deflateSync, gzipSync } from 'node:zlib';
import { ADMIN_KEY, TestApp } from './support/test-app.js';

describe('Intake (e2e)', () => {
  let t: TestApp;
  let token: { id: string; secret: string };
  let zipkinFilter: string;

  beforeAll(async () => {
    t = await TestApp.start();
    token = await t.createToken('zipkin');
    zipkinFilter = (await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } })).body.id;
  });
  afterAll(async () => {
    await t.close();
  });

  const post = (path: string, body: unknown, options: { auth?: string | null; headers?: Record<string, string>; raw?: string | Buffer } = {}) =>
    t.call('POST', path, { auth: options.auth === undefined ? token.secret : options.auth, headers: { 'content-type': 'application/json', ...options.headers }, rawBody: options.raw ?? JSON.stringify(body) });

  const incident = async (id: string) => (await t.call('GET', `/api/incidents/${id}`)).body;

  describe('authentication', () => {
    it.each([
      ['no Authorization header', null, 'AUTH_MISSING'],
      ['another scheme', 'Basic dXNlcjpwYXNz', 'AUTH_SCHEME'],
      ['an unknown token', 'Bearer iit_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', 'TOKEN_INVALID'],
      ['the admin key', `Bearer ${ADMIN_KEY}`, 'TOKEN_INVALID'],
      ['a bearer with no credentials', 'Bearer ', 'AUTH_INVALID'],
    ])('answers 401 with WWW-Authenticate for %s', async (_, header, code) => {
      const response = await t.call('POST', '/v1/trace', { auth: null, headers: { 'content-type': 'application/json', ...(header ? { authorization: header } : {}) }, rawBody: '{}' });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(response.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', code });
    });

    it('accepts the scheme in any case', async () => {
      const response = await t.call('POST', '/v1/alert', { auth: null, headers: { authorization: `bEaReR ${token.secret}`, 'content-type': 'application/json' }, rawBody: '{}' });
      expect(response.status).toBe(202);
    });

    it('authenticates before reading the body', async () => {
      const response = await t.call('POST', '/v1/trace', { auth: null, headers: { 'content-type': 'text/plain' }, rawBody: 'not json' });
      expect(response.status).toBe(401);
    });

    it('never lets an API token open an admin endpoint', async () => {
      const response = await t.call('GET', '/api/tokens', { auth: token.secret });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('ADMIN_KEY_INVALID');
    });

    it('rejects a revoked token at once and moves lastUsedAt for a live one', async () => {
      const other = await t.createToken('short-lived');
      expect((await post('/v1/alert', {}, { auth: other.secret })).status).toBe(202);
      const read = await t.call('GET', `/api/tokens/${other.id}`);
      expect(Date.now() - Date.parse(read.body.lastUsedAt)).toBeLessThan(60_000);
      await t.call('DELETE', `/api/tokens/${other.id}`);
      const response = await post('/v1/alert', {}, { auth: other.secret });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('TOKEN_INVALID');
    });
  });

  describe('zipkin-tracing filter', () => {
    it('opens an incident on a running span, deduplicates, and resolves on completion', async () => {
      const span = { traceId: 'trace-1', id: 'span-1', name: 'checkout', timestamp: 1732262400000000, duration: 1200, status: 'running' };
      const opened = await post('/v1/trace', span);
      expect(opened.status).toBe(202);
      expect(opened.body).toEqual({
        received: 1,
        payloads: [{ index: 0, filters: [{ filterId: zipkinFilter, filterName: null, action: 'created', incidentId: expect.any(String) }] }],
      });
      const id = opened.body.payloads[0].filters[0].incidentId;
      expect(await incident(id)).toMatchObject({ title: 'checkout', description: '1200', mappedValue: 'trace-1', status: 'open', triggerCount: 1, filterId: zipkinFilter, tokenId: token.id, resolvedAt: null, resolvedBy: null });

      const again = await post('/v1/trace', span);
      expect(again.body.payloads[0].filters[0]).toMatchObject({ action: 'deduplicated', incidentId: id });
      expect(await incident(id)).toMatchObject({ status: 'open', triggerCount: 2 });

      const done = await post('/v1/trace', { ...span, status: 'completed' });
      expect(done.body.payloads[0].filters[0]).toMatchObject({ action: 'resolved', incidentId: id });
      expect(await incident(id)).toMatchObject({ status: 'resolved', resolvedBy: 'filter', resolvedAt: expect.any(String) });

      const late = await post('/v1/trace', { ...span, status: 'completed' });
      expect(late.body.payloads[0].filters[0]).toEqual({ filterId: zipkinFilter, filterName: null, action: 'no-open-incident', incidentId: null });
    });

    it.each([
      ['a numeric timestamp', 1732262400000],
      ['an ISO-8601 timestamp', '2026-11-22T10:00:00.000Z'],
    ])('handles the specification\'s payload with %s', async (_, timestamp) => {
      const traceId = `spec-${typeof timestamp}`;
      const start = { traceId, id: 'a1', name: 'payment-service', timestamp, duration: 350, status: 'running' };
      const opened = await post('/v1/trace', start);
      const id = opened.body.payloads[0].filters[0].incidentId;
      expect(await incident(id)).toMatchObject({ title: 'payment-service', description: '350', mappedValue: traceId, status: 'open' });
      const done = await post('/v1/trace', { ...start, status: 'completed', duration: '900' });
      expect(done.body.payloads[0].filters[0]).toMatchObject({ action: 'resolved', incidentId: id });
    });

    it('evaluates each element of an array in order', async () => {
      const spans = [
        { traceId: 'arr-1', name: 'a', status: 'running' },
        { traceId: 'arr-2', name: 'b', status: 'running' },
        { traceId: 'arr-1', name: 'a', status: 'completed' },
        { traceId: 'arr-3', name: 'c', status: 'queued' },
      ];
      const response = await post('/v1/trace', spans);
      expect(response.status).toBe(202);
      expect(response.body.received).toBe(4);
      expect(response.body.payloads.map((p: { filters: Array<{ action: string }> }) => p.filters[0].action)).toEqual(['created', 'created', 'resolved', 'unmatched']);
      expect(response.body.payloads[2].filters[0].incidentId).toBe(response.body.payloads[0].filters[0].incidentId);
    });

    it('keeps every digit of a 64-bit integer trace id', async () => {
      const response = await post('/v1/trace', null, { raw: '{"traceId": 12345678901234567890, "name": "big", "status": "running"}' });
      expect(await incident(response.body.payloads[0].filters[0].incidentId)).toMatchObject({ mappedValue: '12345678901234567890' });
    });

    it('keeps exactly one open incident for 200 simultaneous identical triggers', async () => {
      const span = { traceId: 'storm', name: 'storm', status: 'running' };
      const responses = await Promise.all(Array.from({ length: 200 }, () => post('/v1/trace', span)));
      expect(responses.every((r) => r.status === 202)).toBe(true);
      const { rows } = await t.db.query(`select id, trigger_count from incidents where mapped_value = 'storm' and status = 'open'`);
      expect(rows).toHaveLength(1);
      expect(rows[0].trigger_count).toBe(200);
      expect(responses.filter((r) => r.body.payloads[0].filters[0].action === 'created')).toHaveLength(1);
    });
  });

  describe('alert-webhook filter', () => {
    let alerts: { id: string; secret: string };
    beforeAll(async () => {
      alerts = await t.createToken('alerts');
      await t.call('POST', '/api/filters', { body: { tokenId: alerts.id, template: 'alert-webhook' } });
    });

    it.each([
      ['Alert for "Job failures" - 12 lines found', 'Job failures in the last 5 minutes:\n```\n2026-11-22T10:00:00Z ERROR job 42 failed: "timeout" at C:\\jobs\\run.ps1\n```\nSee runbook.'],
      ['🚨 Alert for "Payment errors" - 3 lines found', 'Zahlungsfehler: Überweisung fehlgeschlagen — 支付失败 \\n not a newline\n\t"quoted"'],
    ])('opens an incident titled %j with the body as description, exactly', async (title, body) => {
      const response = await post('/v1/alert', { body, title, link: 'https://alerts.example.com/a/1' }, { auth: alerts.secret });
      expect(response.status).toBe(202);
      const outcome = response.body.payloads[0].filters[0];
      expect(outcome.action).toBe('created');
      const opened = await incident(outcome.incidentId);
      expect(opened.title).toBe(title);
      expect(opened.description).toBe(body);
      expect(opened.mappedValue).toBeNull();
    });

    it('opens a new incident for every alert (no mapping) and leaves resolving to an admin', async () => {
      const alert = { body: 'x', title: 'Alert for "Disk" - 1 lines found', link: 'l' };
      const first = (await post('/v1/alert', alert, { auth: alerts.secret })).body.payloads[0].filters[0];
      const second = (await post('/v1/alert', alert, { auth: alerts.secret })).body.payloads[0].filters[0];
      expect(first.action).toBe('created');
      expect(second.action).toBe('created');
      expect(second.incidentId).not.toBe(first.incidentId);
      const resolved = await t.call('POST', `/api/incidents/${first.incidentId}/resolve`);
      expect(resolved.status).toBe(200);
      expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: 'admin' });
      const twice = await t.call('POST', `/api/incidents/${first.incidentId}/resolve`);
      expect(twice.status).toBe(200);
      expect(twice.body.resolvedAt).toBe(resolved.body.resolvedAt);
    });

    it('reports unmatched for a title without "Alert"', async () => {
      const response = await post('/v1/alert', { body: 'b', title: 'Resolved: Disk', link: 'l' }, { auth: alerts.secret });
      expect(response.body.payloads[0].filters[0].action).toBe('unmatched');
    });
  });

  describe('body handling', () => {
    const running = (traceId: string) => ({ traceId, name: 'zipped', status: 'running' });
    /** A JSON array holding `value`, padded with spaces to exactly `bytes` bytes. */
    const padded = (value: object, bytes: number) => {
      const json = JSON.stringify(value);
      return `[${json}${' '.repeat(bytes - json.length - 2)}]`;
    };

    it('accepts a body of exactly 5242880 bytes, plain and gzipped', async () => {
      const plain = await post('/v1/trace', null, { raw: padded(running('max-plain'), 5_242_880) });
      expect(plain.status).toBe(202);
      expect(plain.body.payloads[0].filters[0].action).toBe('created');
      const zipped = await post('/v1/trace', null, { raw: gzipSync(padded(running('max-gzip'), 5_242_880)), headers: { 'content-encoding': 'gzip' } });
      expect(zipped.status).toBe(202);
    });

    it('accepts gzip and deflate bodies', async () => {
      for (const [encoding, compress] of [['gzip', gzipSync], ['deflate', deflateSync]] as const) {
        const response = await post('/v1/trace', null, { raw: compress(Buffer.from(JSON.stringify([running(`z-${encoding}`)]))), headers: { 'content-encoding': encoding } });
        expect(response.status).toBe(202);
        expect(response.body.payloads[0].filters[0].action).toBe('created');
      }
    });

    it.each(['application/json; charset=utf-8', 'application/vnd.zipkin+json', 'APPLICATION/JSON'])('accepts the content type %s', async (type) => {
      const response = await post('/v1/trace', {}, { headers: { 'content-type': type } });
      expect(response.status).toBe(202);
    });

    it('answers an empty array with 202 and nothing to evaluate', async () => {
      const response = await post('/v1/trace', []);
      expect(response.status).toBe(202);
      expect(response.body).toEqual({ received: 0, payloads: [] });
    });

    const rejected: Array<[string, { raw?: string | Buffer; headers?: Record<string, string> }, number, string]> = [
      ['malformed JSON', { raw: '{"traceId": ' }, 400, 'JSON_INVALID'],
      ['a string', { raw: '"running"' }, 400, 'BODY_NOT_OBJECTS'],
      ['a number', { raw: '42' }, 400, 'BODY_NOT_OBJECTS'],
      ['null', { raw: 'null' }, 400, 'BODY_NOT_OBJECTS'],
      ['an array holding a non-object', { raw: JSON.stringify([running('bad-1'), 'x']) }, 400, 'BODY_NOT_OBJECTS'],
      ['an empty body', { raw: '' }, 400, 'BODY_EMPTY'],
      ['text/plain', { raw: JSON.stringify(running('bad-2')), headers: { 'content-type': 'text/plain' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['an unsupported encoding', { raw: JSON.stringify(running('bad-3')), headers: { 'content-encoding': 'br' } }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ['corrupt gzip', { raw: Buffer.from('not gzip at all'), headers: { 'content-encoding': 'gzip' } }, 400, 'BODY_ENCODING_INVALID'],
      ['5242880 + 1 bytes', { raw: padded(running('bad-4'), 5_242_881) }, 413, 'PAYLOAD_TOO_LARGE'],
      ['a gzip body that expands past the limit', { raw: gzipSync(Buffer.from(`[${JSON.stringify(running('bad-5'))}${' '.repeat(6_000_000)}]`)), headers: { 'content-encoding': 'gzip' } }, 413, 'PAYLOAD_TOO_LARGE'],
      ['invalid UTF-8', { raw: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]) }, 400, 'BODY_NOT_UTF8'],
      ['nesting 100000 levels deep', { raw: '['.repeat(100_000) + ']'.repeat(100_000) }, 400, 'BODY_TOO_DEEP'],
    ];
    it.each(rejected)('rejects %s, changing nothing', async (_, options, status, code) => {
      const before = await t.count('incidents');
      const response = await post('/v1/trace', null, options);
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ statusCode: status, code, message: expect.any(String), error: expect.any(String) });
      expect(await t.count('incidents')).toBe(before);
    });

    it('rejects the whole call when one element is bad: nothing half-written', async () => {
      const before = await t.count('incidents');
      const response = await post('/v1/trace', [running('half-1'), running('half-2'), 7]);
      expect(response.status).toBe(400);
      expect(response.body.message).toContain('element 2');
      expect(await t.count('incidents')).toBe(before);
    });

    it('cuts a 1 MB title to 1000 characters', async () => {
      const response = await post('/v1/trace', { traceId: 'long-title', name: 'n'.repeat(1_000_000), status: 'running' });
      expect(response.status).toBe(202);
      const opened = await incident(response.body.payloads[0].filters[0].incidentId);
      expect(opened.title).toBe('n'.repeat(1000));
    });
  });

  describe('incidents API', () => {
    it('filters by status, token and filter, newest first, with a cursor', async () => {
      const own = await t.createToken('listing');
      const filter = (await t.call('POST', '/api/filters', { body: { tokenId: own.id, template: 'zipkin-tracing' } })).body.id;
      for (const traceId of ['l1', 'l2', 'l3']) await post('/v1/trace', { traceId, name: traceId, status: 'running' }, { auth: own.secret });
      await post('/v1/trace', { traceId: 'l2', status: 'completed' }, { auth: own.secret });

      const all = await t.call('GET', `/api/incidents?tokenId=${own.id}`);
      expect(all.body.items.map((i: { mappedValue: string }) => i.mappedValue)).toEqual(['l3', 'l2', 'l1']);
      const open = await t.call('GET', `/api/incidents?filterId=${filter}&status=open`);
      expect(open.body.items.map((i: { mappedValue: string }) => i.mappedValue)).toEqual(['l3', 'l1']);
      const resolved = await t.call('GET', `/api/incidents?tokenId=${own.id}&status=resolved`);
      expect(resolved.body.items.map((i: { mappedValue: string }) => i.mappedValue)).toEqual(['l2']);

      const first = await t.call('GET', `/api/incidents?tokenId=${own.id}&limit=2`);
      expect(first.body.items).toHaveLength(2);
      const second = await t.call('GET', `/api/incidents?tokenId=${own.id}&limit=2&cursor=${first.body.nextCursor}`);
      expect(second.body.items.map((i: { mappedValue: string }) => i.mappedValue)).toEqual(['l1']);
      expect(second.body.nextCursor).toBeNull();
    });

    it.each(['status=closed', 'tokenId=abc', 'filterId=1', 'limit=0', 'cursor=%00'])('rejects %s with a 400', async (query) => {
      expect((await t.call('GET', `/api/incidents?${query}`)).status).toBe(400);
    });

    it.each(['nope', '00000000-0000-4000-8000-000000000000'])('answers 404 for the incident %s', async (id) => {
      expect((await t.call('GET', `/api/incidents/${id}`)).status).toBe(404);
      expect((await t.call('POST', `/api/incidents/${id}/resolve`)).status).toBe(404);
    });
  });
});
