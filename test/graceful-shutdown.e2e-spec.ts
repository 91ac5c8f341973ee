import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'node:http';
import { connect } from 'node:net';
import pg from 'pg';
import { createTestDatabase, dropTestDatabase } from './support/database-url.js';
import { adminCall, startService, stopAllServices, type ServiceProcess } from './support/service-process.js';
import { ADMIN_KEY } from './support/test-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Result = { traceId: string; sentAt: number; status: number | null; error: string | null };

/** True when a new TCP connection to the port is refused. */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

describe('Graceful shutdown (e2e, child process)', () => {
  let databaseUrl: string;
  let db: pg.Client;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
  });
  afterEach(async () => {
    // A service still running here failed to stop by itself: do not wait long for it.
    await stopAllServices(2000);
  });
  afterAll(async () => {
    await db?.end();
    if (databaseUrl) await dropTestDatabase(databaseUrl);
  });

  async function startWithFilter(): Promise<{ service: ServiceProcess; secret: string }> {
    const service = await startService({ DATABASE_URL: databaseUrl, ADMIN_API_KEY: ADMIN_KEY });
    const token = await adminCall(service.baseUrl, ADMIN_KEY, 'POST', '/api/tokens', { name: 'shutdown' });
    expect(token.status).toBe(201);
    expect((await adminCall(service.baseUrl, ADMIN_KEY, 'POST', '/api/filters', { tokenId: token.body.id, template: 'zipkin-tracing' })).status).toBe(201);
    return { service, secret: token.body.token };
  }

  const openIncidents = async (traceIds: string[]) =>
    new Set((await db.query('select mapped_value from incidents where mapped_value = any($1)', [traceIds])).rows.map((r) => r.mapped_value as string));

  it('commits every accepted call of a steady stream cut by SIGTERM, then refuses, and exits 0', async () => {
    const { service, secret } = await startWithFilter();
    const results: Result[] = [];
    let signalledAt = Infinity;
    const deadline = Date.now() + 20_000;

    // 20 loops posting unique traceIds until their calls stop being answered (bounded in count and time).
    const loop = async (n: number) => {
      for (let i = 0; i < 400 && Date.now() < deadline; i++) {
        const traceId = `stream-${n}-${i}`;
        const result: Result = { traceId, sentAt: Date.now(), status: null, error: null };
        results.push(result);
        try {
          const response = await fetch(`${service.baseUrl}/v1/trace`, {
            method: 'POST',
            headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
            body: JSON.stringify({ traceId, name: traceId, status: 'running' }),
          });
          result.status = response.status;
          await response.arrayBuffer();
        } catch (error) {
          result.error = String((error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
        }
        if (result.error !== null && result.sentAt > signalledAt) return;
      }
    };
    const loops = Array.from({ length: 20 }, (_, n) => loop(n));

    // Signal once the stream is well under way.
    for (let i = 0; i < 400 && results.filter((r) => r.status === 202).length < 100; i++) await sleep(25);
    expect(results.filter((r) => r.status === 202).length).toBeGreaterThanOrEqual(100);
    signalledAt = Date.now();
    service.child.kill('SIGTERM');
    const code = await Promise.race([service.exited, sleep(10_000).then(() => `still running 10 s after SIGTERM:\n${service.output()}`)]);
    expect(code).toBe(0);
    await Promise.all(loops);

    expect(service.output()).toContain('SIGTERM received');
    expect(service.output()).toContain('stopped');

    // Every answer is a 202, a 503 (arrived while closing) or a connection error: never a 500.
    for (const result of results) {
      if (result.status !== null) expect([202, 503]).toContain(result.status);
      else expect(result.error).toEqual(expect.any(String));
    }
    // The stream ran into the stop: every loop ended on a refused call sent after the signal.
    expect(results.filter((r) => r.sentAt > signalledAt && r.error !== null).length).toBeGreaterThanOrEqual(20);
    // Every 202 was committed before it was sent.
    const accepted = results.filter((r) => r.status === 202).map((r) => r.traceId);
    const stored = await openIncidents(accepted);
    expect(accepted.filter((id) => !stored.has(id))).toEqual([]);
    // Once it has exited, calls get a connection error.
    for (let i = 0; i < 3; i++) {
      await expect(fetch(`${service.baseUrl}/v1/trace`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: '{}' })).rejects.toThrow();
    }
    // A 503 wrote nothing.
    const rejected = results.filter((r) => r.status === 503).map((r) => r.traceId);
    expect((await openIncidents(rejected)).size).toBe(0);
  }, 60_000);

  it('refuses new connections after SIGTERM while it finishes a call in flight', async () => {
    const { service, secret } = await startWithFilter();
    const port = Number(new URL(service.baseUrl).port);
    const body = Buffer.from(JSON.stringify({ traceId: 'in-flight', name: 'in-flight', status: 'running' }));

    // A call whose body is only half sent when the signal arrives.
    let inFlight: ReturnType<typeof request> | undefined;
    const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, method: 'POST', path: '/v1/trace', agent: false, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', 'content-length': body.length } },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, 20));
      inFlight = req;
    });
    await sleep(200);
    expect(inFlight).toBeDefined();

    service.child.kill('SIGTERM');
    let closed = false;
    for (let i = 0; i < 100 && !closed; i++) {
      closed = await refused(port);
      if (!closed) await sleep(50);
    }
    expect(closed).toBe(true);
    // Still running: it waits for the call in flight.
    await sleep(300);
    expect(service.child.exitCode).toBeNull();

    inFlight!.end(body.subarray(20));
    const finished = await answer;
    expect(finished.status).toBe(202);
    expect(finished.body.payloads[0].filters[0].action).toBe('created');
    expect(await service.exited).toBe(0);
    expect((await openIncidents(['in-flight'])).size).toBe(1);
  }, 60_000);
});
