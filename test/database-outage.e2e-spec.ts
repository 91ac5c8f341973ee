import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { createOrm } from '../src/database/database.module.js';
import { EmbeddedPostgres } from '../src/database/embedded-postgres.js';
import { withDatabase } from './support/database-url.js';
import { ADMIN_KEY } from './support/test-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The app in-process on its own embedded PostgreSQL, which the test stops and starts again. */
describe('Database outage (e2e, own PostgreSQL)', () => {
  let dataDir: string;
  let postgres: EmbeddedPostgres;
  let serverUrl: string;
  let databaseUrl: string;
  let app: NestFastifyApplication | null = null;
  let baseUrl: string;
  let token: { id: string; secret: string };
  let filterId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'intake-outage-'));
    postgres = new EmbeddedPostgres({ dataDir });
    serverUrl = await postgres.start();
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    await admin.query('create database outage');
    await admin.end();
    databaseUrl = withDatabase(serverUrl, 'outage');
    await (await createOrm({ url: databaseUrl, migrate: true, poolSize: 2 })).close();
    const config = loadConfig({ ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'error' });
    app = await createApp({ config, database: { url: databaseUrl, migrate: false, poolSize: 5 }, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address();
    baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

    const created = await adminCall('POST', '/api/tokens', { name: 'outage' });
    token = { id: created.body.id, secret: created.body.token };
    filterId = (await adminCall('POST', '/api/filters', { tokenId: token.id, template: 'zipkin-tracing' })).body.id;
  }, 60_000);

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await postgres?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 30_000);

  async function adminCall(method: string, path: string, body?: unknown) {
    const response = await fetch(baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${ADMIN_KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as any };
  }

  /** One trigger with a unique traceId; the status, headers, body and how long the answer took. */
  async function trigger(traceId: string) {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/v1/trace`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ traceId, name: traceId, status: 'running' }),
    });
    const body = (await response.json()) as any;
    return { status: response.status, headers: response.headers, body, ms: performance.now() - started };
  }

  const ready = async () => {
    const response = await fetch(`${baseUrl}/health/ready`);
    return { status: response.status, body: (await response.json()) as any };
  };

  it('answers 503 with Retry-After within 2 seconds while PostgreSQL is down, then recovers by itself', async () => {
    const accepted: string[] = [];
    const before = await trigger('before-outage');
    expect(before.status).toBe(202);
    accepted.push('before-outage');

    await postgres.stop();
    const warnings = jest.spyOn(Logger.prototype, 'warn');

    // One at a time, then several at once: each answers 503 quickly, nothing written.
    const sequential = [];
    for (let i = 0; i < 3; i++) sequential.push(await trigger(`down-${i}`));
    const concurrent = await Promise.all(Array.from({ length: 5 }, (_, i) => trigger(`down-c-${i}`)));
    for (const answer of [...sequential, ...concurrent]) {
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable', code: 'DATABASE_UNAVAILABLE', message: expect.any(String) });
      expect(answer.ms).toBeLessThan(2000);
    }
    const readiness = await ready();
    expect(readiness.status).toBe(503);
    expect(readiness.body).toEqual({ status: 'unavailable', database: 'down' });
    expect((await adminCall('GET', '/api/incidents')).status).toBe(503);
    // The operator is told why, once for the whole burst (not a line per call).
    const reports = warnings.mock.calls.map(([line]) => String(line)).filter((line) => line.startsWith('answering 503 DATABASE_UNAVAILABLE'));
    warnings.mockRestore();
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatch(/ECONNREFUSED/);

    // Same data directory, same server: the app's connection URL must still be right.
    const restartedUrl = await postgres.start();
    expect(restartedUrl).toBe(serverUrl);

    // The pool reconnects on its own; allow the server a few seconds to accept connections.
    let readyAgain = await ready();
    for (let i = 0; i < 40 && readyAgain.status !== 200; i++) {
      await sleep(250);
      readyAgain = await ready();
    }
    expect(readyAgain.status).toBe(200);

    const after = await trigger('after-outage');
    expect(after.status).toBe(202);
    expect(after.body.payloads[0].filters[0]).toMatchObject({ filterId, action: 'created' });
    accepted.push('after-outage');
    const incident = await adminCall('GET', `/api/incidents/${after.body.payloads[0].filters[0].incidentId}`);
    expect(incident.body).toMatchObject({ mappedValue: 'after-outage', status: 'open', tokenId: token.id });

    // Nothing half-written: exactly the accepted calls left incidents.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query('select mapped_value from incidents order by mapped_value');
      expect(rows.map((r) => r.mapped_value)).toEqual([...accepted].sort());
    } finally {
      await db.end();
    }
  }, 60_000);
});
