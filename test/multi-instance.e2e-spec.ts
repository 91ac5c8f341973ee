import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { migrationsList } from '../migrations/index.js';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { ApiLogService } from '../src/modules/api-log/api-log.service.js';
import { TokensService } from '../src/modules/tokens/tokens.service.js';
import { EventBus } from '../src/shared/events/event-bus.js';
import { dropTestDatabase, serverUrl, withDatabase } from './support/database-url.js';
import { adminCall, startService, stopAllServices, type ServiceProcess } from './support/service-process.js';
import { ADMIN_KEY } from './support/test-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Two instances on one database (e2e, child processes)', () => {
  let databaseUrl: string;
  let db: pg.Client;
  let a: ServiceProcess;
  let b: ServiceProcess;
  let token: { id: string; secret: string };
  const env = () => ({ DATABASE_URL: databaseUrl, ADMIN_API_KEY: ADMIN_KEY, API_TOKEN_DEBUG_TTL: '2s' });

  beforeAll(async () => {
    // An empty database: both instances migrate it at start-up.
    const name = `intake_test_multi_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: serverUrl() });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    databaseUrl = withDatabase(serverUrl(), name);
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await stopAllServices();
    await db?.end();
    if (databaseUrl) await dropTestDatabase(databaseUrl);
  });

  const trace = (service: ServiceProcess, payload: unknown, secret = token.secret) =>
    fetch(`${service.baseUrl}/v1/trace`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

  it('starts two instances at once on an empty database: they take turns migrating', async () => {
    [a, b] = await Promise.all([startService(env()), startService(env())]);
    const { rows } = await db.query('select name from mikro_orm_migrations order by name');
    expect(rows.map((r) => r.name)).toEqual(migrationsList.map((m) => m.name).sort());
    for (const service of [a, b]) {
      expect(service.output()).not.toMatch(/error|Cannot start/i);
      expect((await fetch(`${service.baseUrl}/health/ready`)).status).toBe(200);
    }
  }, 60_000);

  it('keeps one open incident for 200 simultaneous identical triggers sent to both, and resolves it through the other', async () => {
    const created = await adminCall(a.baseUrl, ADMIN_KEY, 'POST', '/api/tokens', { name: 'shared' });
    token = { id: created.body.id, secret: created.body.token };
    const filter = await adminCall(a.baseUrl, ADMIN_KEY, 'POST', '/api/filters', { tokenId: token.id, template: 'zipkin-tracing' });
    expect(filter.status).toBe(201);

    const span = { traceId: 'both-instances', name: 'checkout', status: 'running' };
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => trace(i % 2 === 0 ? a : b, span)));
    expect(answers.map((r) => r.status)).toEqual(Array(200).fill(202));
    const actions = answers.map((r) => r.body.payloads[0].filters[0]);
    expect(actions.filter((o) => o.action === 'created')).toHaveLength(1);
    expect(actions.filter((o) => o.action === 'deduplicated')).toHaveLength(199);
    const ids = new Set(actions.map((o) => o.incidentId));
    expect(ids.size).toBe(1);
    const [incidentId] = ids;
    const { rows } = await db.query(`select id, trigger_count from incidents where mapped_value = 'both-instances' and status = 'open'`);
    expect(rows).toEqual([{ id: incidentId, trigger_count: 200 }]);

    // Opened through A (and B), completed through B.
    const done = await trace(b, { ...span, status: 'completed' });
    expect(done.body.payloads[0].filters[0]).toMatchObject({ action: 'resolved', incidentId });
    const read = await adminCall(a.baseUrl, ADMIN_KEY, 'GET', `/api/incidents/${incidentId}`);
    expect(read.body).toMatchObject({ status: 'resolved', resolvedBy: 'filter', triggerCount: 200 });
  }, 60_000);

  it('ends a debug window on both instances before any job runs', async () => {
    const created = await adminCall(a.baseUrl, ADMIN_KEY, 'POST', '/api/tokens', { name: 'debugging' });
    const debugToken = { id: created.body.id as string, secret: created.body.token as string };
    const on = await adminCall(b.baseUrl, ADMIN_KEY, 'PATCH', `/api/tokens/${debugToken.id}`, { debug: true });
    expect(on.body.debug).toBe(true);
    expect((await trace(a, { n: 1 }, debugToken.secret)).status).toBe(202);

    const expiresAt = Date.parse(on.body.debugExpiresAt);
    await sleep(Math.max(0, expiresAt - Date.now()) + 200);
    expect((await trace(b, { n: 2 }, debugToken.secret)).status).toBe(202);
    expect((await trace(a, { n: 3 }, debugToken.secret)).status).toBe(202);
    for (const service of [a, b]) {
      expect((await adminCall(service.baseUrl, ADMIN_KEY, 'GET', `/api/tokens/${debugToken.id}`)).body).toMatchObject({ debug: false });
    }
    const logged = await db.query('select body from api_log where token_id = $1', [debugToken.id]);
    expect(logged.rows.map((r) => r.body)).toEqual(['{"n":1}']);
    // The flag is still set in the database: only reads know the window ended.
    const stored = await db.query('select debug_expires_at from api_tokens where id = $1', [debugToken.id]);
    expect(stored.rows[0].debug_expires_at).not.toBeNull();

    // The child processes are done; their every-minute jobs must not take part in what follows.
    expect(await a.stop()).toBe(0);
    expect(await b.stop()).toBe(0);
  }, 60_000);

  describe('the jobs\' statements run from two instances at once', () => {
    let one: NestFastifyApplication;
    let two: NestFastifyApplication;
    beforeAll(async () => {
      const config = loadConfig({ ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'error', API_TOKEN_DEBUG_TTL: '2s', API_LOG_RETENTION: '30d' });
      [one, two] = await Promise.all(
        [1, 2].map(() => createApp({ config, database: { url: databaseUrl, migrate: false, poolSize: 4 }, logger: false })),
      );
    }, 60_000);
    afterAll(async () => {
      await Promise.all([one?.close(), two?.close()]);
    });

    it('switches each expired debug window off, and announces it, exactly once', async () => {
      const announced: string[] = [];
      for (const app of [one, two]) app.get(EventBus).subscribe('TokenDebugExpired', (event) => void announced.push(event.tokenId));
      // Many expired windows, so that the two statements contend for the same rows.
      await db.query(
        `insert into api_tokens (id, name, secret_hash, debug_enabled_at, debug_expires_at, created_at)
         select gen_random_uuid(), 'bulk ' || g, md5(random()::text) || md5(random()::text), now() - interval '1 hour', now() - interval '1 minute', now()
         from generate_series(1, 400) g`,
      );
      for (let round = 0; round < 3; round++) {
        announced.length = 0;
        if (round > 0) {
          await db.query(`update api_tokens set debug_enabled_at = now() - interval '1 hour', debug_expires_at = now() - interval '1 minute' where name like 'bulk %'`);
        }
        const expired = (await db.query('select id from api_tokens where debug_expires_at <= now()')).rows.map((r) => r.id as string);
        expect(expired.length).toBeGreaterThanOrEqual(400);

        const [byOne, byTwo] = await Promise.all([one.get(TokensService).expireDebugWindows(), two.get(TokensService).expireDebugWindows()]);
        expect(byOne.filter((id) => byTwo.includes(id))).toEqual([]);
        expect([...byOne, ...byTwo].sort()).toEqual([...expired].sort());
        expect([...announced].sort()).toEqual([...expired].sort());
        expect((await db.query('select count(*)::int as n from api_tokens where debug_expires_at is not null')).rows[0].n).toBe(0);
      }
    }, 60_000);

    it('deletes each API log entry past the retention once, in batches, without errors', async () => {
      const tokenId = randomUUID();
      const fresh = 10;
      await db.query(
        `insert into api_log (id, token_id, received_at, method, path, status_code, headers, body_kind, body)
         select gen_random_uuid(), $1, now(), 'POST', '/v1/trace', 202, '{}', 'json', '{}' from generate_series(1, $2) g`,
        [tokenId, fresh],
      );
      for (const old of [2500, 999, 1]) {
        await db.query(
          `insert into api_log (id, token_id, received_at, method, path, status_code, headers, body_kind, body)
           select gen_random_uuid(), $1, now() - interval '31 days' - (g || ' seconds')::interval, 'POST', '/v1/trace', 202, '{}', 'json', '{}'
           from generate_series(1, $2) g`,
          [tokenId, old],
        );
        const [byOne, byTwo] = await Promise.all([one.get(ApiLogService).pruneExpired(), two.get(ApiLogService).pruneExpired()]);
        expect(byOne + byTwo).toBe(old);
        expect((await db.query('select count(*)::int as n from api_log where token_id = $1', [tokenId])).rows[0].n).toBe(fresh);
      }
    }, 60_000);
  });
});
