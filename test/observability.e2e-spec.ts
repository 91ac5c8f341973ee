import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ADMIN_KEY, TestApp } from './support/test-app.js';
import { createTestDatabase, dropTestDatabase } from './support/database-url.js';
import { adminCall, startService, stopAllServices } from './support/service-process.js';

/** The value of one sample line of the Prometheus text, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('Metrics (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts intake calls, payload outcomes, open incidents, API log writes and pool connections', async () => {
    const before = (await t.call('GET', '/metrics', { auth: null })).text;
    const token = await t.createToken('metrics', { debug: true });
    await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } });
    const send = (body: unknown, auth: string | null = token.secret) => t.call('POST', '/v1/trace', { auth, body });
    await send([{ traceId: 'm1', name: 'a', status: 'running' }, { traceId: 'm2', name: 'b', status: 'queued' }]);
    await send({ traceId: 'm1', name: 'a', status: 'running' });
    await send({}, null);

    const response = await t.call('GET', '/metrics', { auth: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = response.text;
    const grew = (series: string) => (sample(text, series) ?? 0) - (sample(before, series) ?? 0);
    expect(grew('intake_requests_total{route="/v1/trace",status="202"}')).toBe(2);
    expect(grew('intake_requests_total{route="/v1/trace",status="401"}')).toBe(1);
    expect(grew('intake_request_duration_seconds_count{route="/v1/trace"}')).toBe(3);
    expect(grew('intake_payload_outcomes_total{action="created"}')).toBe(1);
    expect(grew('intake_payload_outcomes_total{action="unmatched"}')).toBe(1);
    expect(grew('intake_payload_outcomes_total{action="deduplicated"}')).toBe(1);
    expect(grew('api_log_writes_total')).toBe(2);
    const { rows } = await t.db.query(`select count(*)::int as n from incidents where status = 'open'`);
    expect(sample(text, 'incidents_open')).toBe(rows[0].n);
    expect(sample(text, 'db_pool_connections{state="total"}')).toBeGreaterThanOrEqual(1);
    expect(text).toContain('process_cpu_user_seconds_total');
  });
});

describe('Structured logs (e2e, child process)', () => {
  let url: string;
  beforeAll(async () => {
    url = await createTestDatabase();
  });
  afterAll(async () => {
    await stopAllServices();
    await dropTestDatabase(url);
  });

  it('writes JSON lines with a request id, echoes it, and never logs the Authorization header', async () => {
    const service = await startService({ DATABASE_URL: url, ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: 'debug' });
    const token = await adminCall<{ token: string }>(service.baseUrl, ADMIN_KEY, 'POST', '/api/tokens', { name: 'logged' });
    const answer = await fetch(`${service.baseUrl}/v1/trace`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.body.token}`, 'content-type': 'application/json', 'x-request-id': 'trace-me-42' },
      body: '{"broken": ',
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('x-request-id')).toBe('trace-me-42');
    const generated = await fetch(`${service.baseUrl}/health`);
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    await new Promise((r) => setTimeout(r, 200));

    const lines = service.output().split('\n').filter((l) => l.startsWith('{'));
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const rejected = records.find((r) => r.reqId === 'trace-me-42' && r.msg === 'request completed');
    expect(rejected).toMatchObject({ level: 30, method: 'POST', url: '/v1/trace', statusCode: 400 });
    expect(records.some((r) => r.url === '/health' && r.level === 20)).toBe(true);
    expect(service.output()).not.toContain(token.body.token);
    expect(service.output()).not.toContain(ADMIN_KEY);
  }, 60_000);
});
