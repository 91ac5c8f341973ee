import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { gzipSync } from 'node:zlib';
import { EventBus } from '../src/shared/events/event-bus.js';
import { TokensService } from '../src/modules/tokens/tokens.service.js';
import { ApiLogService, RETENTION_BATCH } from '../src/modules/api-log/api-log.service.js';
import { TestApp } from './support/test-app.js';

const TTL_SECONDS = 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('API log and debug mode (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ API_TOKEN_DEBUG_TTL: `${TTL_SECONDS}s` });
  });
  afterAll(async () => {
    await t.close();
  });

  const send = (secret: string, body: unknown, headers: Record<string, string> = {}, raw?: string | Buffer) =>
    t.call('POST', '/v1/trace', { auth: secret, headers: { 'content-type': 'application/json', ...headers }, rawBody: raw ?? JSON.stringify(body) });
  const logOf = async (tokenId: string) => (await t.call('GET', `/api/api-log?tokenId=${tokenId}&limit=500`)).body.items as any[];

  it('logs nothing for a token without debug', async () => {
    const token = await t.createToken('quiet');
    await send(token.secret, { status: 'running' });
    expect(await logOf(token.id)).toEqual([]);
    const { rows } = await t.db.query('select count(*)::int as n from api_log where token_id = $1', [token.id]);
    expect(rows[0].n).toBe(0);
  });

  it('logs every call of a debug token, committed before the 202, without Authorization', async () => {
    const token = await t.createToken('loud', { debug: true });
    await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } });
    const answer = await send(token.secret, { traceId: 'log-1', name: 'logged', status: 'running' }, { 'x-request-source': 'test', cookie: 'session=abc' });
    expect(answer.status).toBe(202);
    // Read the database straight after the answer: the entry is already committed.
    const { rows } = await t.db.query('select *, headers::text as headers_text from api_log where token_id = $1', [token.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].headers_text).not.toContain(token.secret);
    expect(rows[0].headers).not.toHaveProperty('authorization');
    expect(rows[0].headers).not.toHaveProperty('cookie');
    expect(rows[0].headers['x-request-source']).toBe('test');
    expect(JSON.stringify(rows[0])).not.toContain(token.secret);

    const [entry] = await logOf(token.id);
    expect(entry).toMatchObject({
      tokenId: token.id,
      method: 'POST',
      path: '/v1/trace',
      statusCode: 202,
      bodyKind: 'json',
      body: { traceId: 'log-1', name: 'logged', status: 'running' },
      outcome: answer.body.payloads,
      error: null,
    });
    expect((await t.call('GET', `/api/api-log/${entry.id}`)).body).toEqual(entry);
  });

  it('logs rejected calls: malformed JSON as raw text, wrong type, too large, bad gzip', async () => {
    const token = await t.createToken('rejected', { debug: true });
    const malformed = '{"traceId": "x", "status": running}';
    expect((await send(token.secret, null, {}, malformed)).status).toBe(400);
    expect((await send(token.secret, null, { 'content-type': 'text/plain' }, 'hello')).status).toBe(415);
    expect((await send(token.secret, null, {}, `[${' '.repeat(5_242_880)}]`)).status).toBe(413);
    expect((await send(token.secret, null, { 'content-encoding': 'gzip' }, gzipSync(' '.repeat(6_000_000)))).status).toBe(413);
    expect((await send(token.secret, null, {}, 'null')).status).toBe(400);
    const entries = await logOf(token.id);
    expect(entries.map((e) => [e.statusCode, e.bodyKind, e.error?.code])).toEqual([
      [400, 'json', 'BODY_NOT_OBJECTS'],
      [413, 'none', 'PAYLOAD_TOO_LARGE'],
      [413, 'none', 'PAYLOAD_TOO_LARGE'],
      [415, 'text', 'UNSUPPORTED_MEDIA_TYPE'],
      [400, 'text', 'JSON_INVALID'],
    ]);
    expect(entries[4].body).toBe(malformed);
    expect(entries[3].body).toBe('hello');
    expect(entries[0].body).toBeNull();
  });

  it('stores a body with NUL bytes and keeps 64-bit numbers exact', async () => {
    const token = await t.createToken('odd bodies', { debug: true });
    expect((await send(token.secret, null, {}, '{"a": "x\u0000y"')).status).toBe(400);
    expect((await send(token.secret, null, {}, '{"traceId": 12345678901234567890}')).status).toBe(202);
    const entries = await logOf(token.id);
    expect(entries[0].body).toEqual({ traceId: 12345678901234567890 });
    const raw = await t.call('GET', `/api/api-log/${entries[0].id}`);
    expect(raw.text).toContain('12345678901234567890');
    expect(entries[1].body).toBe('{"a": "x\uFFFDy"');
  });

  it('stores every one of many simultaneous calls exactly, awkward texts included (rows written together)', async () => {
    const token = await t.createToken('busy log', { debug: true });
    await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } });
    // Texts that break naive array or JSON quoting: quotes, backslashes, braces, commas, the word NULL,
    // an empty string, non-ASCII and a 100 KB run.
    const awkward = ['"quoted"', 'back\\slash', '{braces},[and]', 'NULL', '', 'ünïcødé ✓ 🚀', 'x'.repeat(100_000)];
    const bodies = Array.from({ length: 40 }, (_, i) => ({ traceId: `busy-${i}`, name: awkward[i % awkward.length], status: i % 2 ? 'running' : 'queued', n: i }));
    const answers = await Promise.all(
      bodies.map((body, i) => send(token.secret, body, { 'x-awkward': awkward[i % 4].replaceAll('\\', '/') || 'none', 'x-call': String(i) })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(202));
    const { rows } = await t.db.query('select headers, body, outcome, status_code from api_log where token_id = $1', [token.id]);
    expect(rows).toHaveLength(40);
    const byCall = new Map(rows.map((row) => [Number(row.headers['x-call']), row]));
    bodies.forEach((body, i) => {
      const row = byCall.get(i)!;
      expect(JSON.parse(row.body)).toEqual(body);
      expect(row.outcome).toEqual(answers[i].body.payloads);
      expect(row.headers['x-awkward']).toBe(awkward[i % 4].replaceAll('\\', '/') || 'none');
      expect(row.status_code).toBe(202);
    });
  });

  it('stops logging when debug is turned off', async () => {
    const token = await t.createToken('switch', { debug: true });
    await send(token.secret, {});
    await t.call('PATCH', `/api/tokens/${token.id}`, { body: { debug: false } });
    await send(token.secret, {});
    expect(await logOf(token.id)).toHaveLength(1);
  });

  it('ends the debug window after the TTL, before and after the job runs', async () => {
    const expired: string[] = [];
    const unsubscribe = t.app.get(EventBus).subscribe('TokenDebugExpired', (event) => {
      expired.push(event.tokenId);
    });
    try {
      const token = await t.createToken('ttl', { debug: true });
      const created = (await t.call('GET', `/api/tokens/${token.id}`)).body;
      expect(Date.parse(created.debugExpiresAt) - Date.parse(created.debugEnabledAt)).toBe(TTL_SECONDS * 1000);
      await send(token.secret, { n: 1 });
      await sleep(TTL_SECONDS * 1000 + 300);
      // The job has not run: reads already say off, and no call is logged.
      expect((await t.call('GET', `/api/tokens/${token.id}`)).body).toMatchObject({ debug: false, debugExpiresAt: null });
      await send(token.secret, { n: 2 });
      expect(await logOf(token.id)).toHaveLength(1);
      const { rows: before } = await t.db.query('select debug_expires_at from api_tokens where id = $1', [token.id]);
      expect(before[0].debug_expires_at).not.toBeNull();

      // Two instances running the job at once: the token is switched off and announced once.
      const tokens = t.app.get(TokensService);
      const [a, b] = await Promise.all([tokens.expireDebugWindows(), tokens.expireDebugWindows()]);
      expect([...a, ...b].filter((id) => id === token.id)).toHaveLength(1);
      expect(expired.filter((id) => id === token.id)).toHaveLength(1);
      const { rows: after } = await t.db.query('select debug_enabled_at, debug_expires_at from api_tokens where id = $1', [token.id]);
      expect(after[0]).toEqual({ debug_enabled_at: null, debug_expires_at: null });
      expect(await tokens.expireDebugWindows()).not.toContain(token.id);
    } finally {
      unsubscribe();
    }
  });

  it('restarts the window when debug is turned on again', async () => {
    const token = await t.createToken('restart', { debug: true });
    await sleep(TTL_SECONDS * 500);
    const again = (await t.call('PATCH', `/api/tokens/${token.id}`, { body: { debug: true } })).body;
    await sleep(TTL_SECONDS * 500 + 300);
    // Past the first window's end, inside the second's.
    expect((await t.call('GET', `/api/tokens/${token.id}`)).body.debug).toBe(true);
    await send(token.secret, {});
    expect(await logOf(token.id)).toHaveLength(1);
    expect(Date.parse(again.debugExpiresAt)).toBeGreaterThan(Date.now() - 1000);
  });

  it('pages without skipping or repeating entries while new calls arrive', async () => {
    const token = await t.createToken('paging', { debug: true });
    await t.call('PATCH', `/api/tokens/${token.id}`, { body: { debug: true } });
    for (let i = 0; i < 30; i++) await send(token.secret, { n: i });
    const { rows } = await t.db.query('select id from api_log where token_id = $1', [token.id]);
    const existing = new Set(rows.map((r: { id: string }) => r.id));

    const seen: string[] = [];
    let cursor: string | null = null;
    let writes = 0;
    do {
      const [page]: Array<{ body: { items: Array<{ id: string }>; nextCursor: string | null } }> = await Promise.all([
        t.call('GET', `/api/api-log?tokenId=${token.id}&limit=7${cursor ? `&cursor=${cursor}` : ''}`),
        send(token.secret, { n: 100 + writes++ }),
        send(token.secret, { n: 200 + writes++ }),
      ]);
      seen.push(...page.body.items.map((e: { id: string }) => e.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of existing) expect(seen).toContain(id);
  });

  it('filters the log by status code and time', async () => {
    const token = await t.createToken('filtering', { debug: true });
    await send(token.secret, {});
    const middle = new Date();
    await sleep(20);
    await send(token.secret, null, {}, '{bad');
    const bad = await t.call('GET', `/api/api-log?tokenId=${token.id}&statusCode=400`);
    expect(bad.body.items.map((e: { statusCode: number }) => e.statusCode)).toEqual([400]);
    const since = await t.call('GET', `/api/api-log?tokenId=${token.id}&since=${middle.toISOString()}`);
    expect(since.body.items).toHaveLength(1);
    const until = await t.call('GET', `/api/api-log?tokenId=${token.id}&until=${middle.toISOString()}`);
    expect(until.body.items.map((e: { statusCode: number }) => e.statusCode)).toEqual([202]);
    for (const query of ['statusCode=abc', 'since=yesterday', 'tokenId=1', 'limit=501']) {
      expect((await t.call('GET', `/api/api-log?${query}`)).status).toBe(400);
    }
    expect((await t.call('GET', '/api/api-log/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await t.call('GET', '/api/api-log/nope')).status).toBe(404);
  });

  it('prunes entries older than the retention in batches', async () => {
    const token = await t.createToken('old', { debug: true });
    await send(token.secret, { fresh: true });
    const old = RETENTION_BATCH * 2 + 5;
    await t.db.query(
      `insert into api_log (id, token_id, received_at, method, path, status_code, headers, body_kind, body)
       select gen_random_uuid(), $1, now() - interval '31 days' - (g || ' seconds')::interval, 'POST', '/v1/trace', 202, '{}', 'json', '{}'
       from generate_series(1, $2) g`,
      [token.id, old],
    );
    expect(await t.app.get(ApiLogService).pruneExpired()).toBe(old);
    const { rows } = await t.db.query('select count(*)::int as n from api_log where token_id = $1', [token.id]);
    expect(rows[0].n).toBe(1);
  });

  describe('backtest', () => {
    it('replays logged payloads exactly as the live intake decided', async () => {
      const token = await t.createToken('backtest', { debug: true });
      const filter = (await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } })).body;
      const calls = [
        [{ traceId: 'b1', name: 'one', status: 'running' }],
        [{ traceId: 'b1', name: 'one', status: 'running' }, { traceId: 'b2', name: 'two', status: 'running' }],
        [{ traceId: 'b1', status: 'completed' }],
        [{ traceId: 'b3', status: 'completed' }],
        [{ traceId: 'b4', name: 'four', status: 'queued' }],
      ];
      const live: Array<{ action: string }> = [];
      for (const body of calls) live.push(...(await send(token.secret, body)).body.payloads.map((p: any) => p.filters[0]));
      const before = await t.count('incidents');

      const result = await t.call('POST', `/api/filters/${filter.id}/backtest`, { body: {} });
      expect(result.status).toBe(200);
      const expected = { created: 'trigger', deduplicated: 'trigger', resolved: 'resolve', 'no-open-incident': 'resolve', unmatched: 'none' } as const;
      // Newest call first; payloads of one call in order.
      const chronological = [...result.body.items].sort((a, b) => Date.parse(a.receivedAt) - Date.parse(b.receivedAt) || a.payloadIndex - b.payloadIndex);
      expect(chronological.map((i: { action: string }) => i.action)).toEqual(live.map((o) => expected[o.action as keyof typeof expected]));
      expect(chronological[0]).toMatchObject({ title: 'one', mappedValue: 'b1', payloadIndex: 0 });
      expect(chronological[2]).toMatchObject({ title: 'two', mappedValue: 'b2', payloadIndex: 1 });
      expect(chronological[3]).toMatchObject({ action: 'resolve', mappedValue: 'b1', title: null });
      expect(result.body.totals).toEqual({ trigger: 3, resolve: 2, none: 1 });
      expect(await t.count('incidents')).toBe(before);

      const limited = await t.call('POST', `/api/filters/${filter.id}/backtest`, { body: { limit: 1 } });
      expect(limited.body.items).toHaveLength(1);
      expect(limited.body.items[0]).toMatchObject({ action: 'none', reason: expect.stringContaining('does not contain "running"') });
    });

    it('backtests a draft filter before it is saved', async () => {
      const token = await t.createToken('draft', { debug: true });
      await send(token.secret, [{ level: 'error', message: 'disk full', host: 'db-1' }, { level: 'info', message: 'ok' }]);
      const filtersBefore = await t.count('filters');
      const result = await t.call('POST', '/api/filters/backtest', {
        body: { tokenId: token.id, trigger: { payloadKey: 'level', valueContains: 'error', titleFrom: 'message', mapIncidentWith: 'host' } },
      });
      expect(result.status).toBe(200);
      expect(result.body.items.map((i: any) => [i.payloadIndex, i.action, i.title, i.mappedValue])).toEqual([
        [0, 'trigger', 'disk full', 'db-1'],
        [1, 'none', null, null],
      ]);
      expect(await t.count('filters')).toBe(filtersBefore);
    });

    it('replays only bodies the intake would take: not a rejected array, not a bare number', async () => {
      const token = await t.createToken('replay-rejected', { debug: true });
      expect((await send(token.secret, null, {}, '[{"level": "error", "message": "m"}, 7]')).status).toBe(400);
      expect((await send(token.secret, null, {}, '12345678901234567890')).status).toBe(400);
      expect((await send(token.secret, { level: 'error', message: 'kept' })).status).toBe(202);
      const result = await t.call('POST', '/api/filters/backtest', {
        body: { tokenId: token.id, trigger: { payloadKey: 'level', valueContains: 'error', titleFrom: 'message' } },
      });
      expect(result.body.items.map((i: { title: string }) => i.title)).toEqual(['kept']);
      expect(result.body.totals).toEqual({ trigger: 1, resolve: 0, none: 0 });
    });

    it.each([
      ['a limit of 0', { limit: 0 }, 400],
      ['a limit of 1001', { limit: 1001 }, 400],
      ['a partial resolve', { resolve: { payloadKey: 'status' } }, 400],
      ['a trigger missing titleFrom', { trigger: { payloadKey: 'a', valueContains: 'b' } }, 400],
      ['an unknown token', { tokenId: '00000000-0000-4000-8000-000000000000' }, 404],
    ])('rejects a draft backtest with %s', async (_, change, status) => {
      const token = await t.createToken('draft-bad');
      const body = { tokenId: token.id, trigger: { payloadKey: 'a', valueContains: 'b', titleFrom: 'c' }, ...change };
      expect((await t.call('POST', '/api/filters/backtest', { body })).status).toBe(status);
    });

    it('answers 404 for an unknown saved filter', async () => {
      expect((await t.call('POST', '/api/filters/00000000-0000-4000-8000-000000000000/backtest', { body: {} })).status).toBe(404);
    });
  });
});
