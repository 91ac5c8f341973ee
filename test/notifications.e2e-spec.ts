import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventBus } from '../src/shared/events/event-bus.js';
import { dropTestDatabase } from './support/database-url.js';
import { TestApp } from './support/test-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

interface Received {
  headers: IncomingHttpHeaders;
  raw: string;
  body: any;
  at: number;
}

/** A webhook receiver on 127.0.0.1 (node:http) that records every call and answers as told. */
class Receiver {
  readonly calls: Received[] = [];
  private server: Server | null = null;
  /** Answer for the n-th call (0-based): a status, after an optional delay. */
  answer: (n: number) => { status: number; delayMs?: number } = () => ({ status: 200 });

  constructor(readonly port: number) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks/incidents`;
  }

  static async start(): Promise<Receiver> {
    const receiver = new Receiver(0);
    await receiver.listen();
    return receiver;
  }

  /** A receiver whose port is free (nothing listens yet): calls are refused until `listen`. */
  static async down(): Promise<Receiver> {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((r) => probe.close(() => r()));
    return new Receiver(port);
  }

  async listen(): Promise<void> {
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const n = this.calls.length;
        this.calls.push({ headers: request.headers, raw, body: JSON.parse(raw), at: Date.now() });
        const { status, delayMs = 0 } = this.answer(n);
        const timer = setTimeout(() => {
          if (!response.destroyed) response.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
        }, delayMs);
        response.on('close', () => clearTimeout(timer));
      });
    });
    await new Promise<void>((r) => server.listen(this.port, '127.0.0.1', r));
    this.server = server;
    (this as { port: number }).port = (server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

/** Verifies a call as a receiver would, with the secret from the create answer. */
function expectSigned(call: Received, secret: string): void {
  const timestamp = call.headers['x-intake-timestamp'] as string;
  expect(timestamp).toMatch(/^\d+$/);
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(10);
  const expected = `sha256=${createHmac('sha256', secret).update(`${timestamp}.${call.raw}`).digest('hex')}`;
  expect(call.headers['x-intake-signature']).toBe(expected);
  expect(call.headers['content-type']).toBe('application/json');
  expect(call.headers['x-intake-event']).toBe(call.body.event);
  expect(call.headers['x-intake-delivery']).toBe(call.body.id);
}

describe('Outbound webhooks (e2e)', () => {
  let t: TestApp;
  let token: { id: string; secret: string };
  let filterId: string;
  const receivers: Receiver[] = [];

  const trace = (traceId: string, status: 'running' | 'completed') =>
    t.call('POST', '/v1/trace', { auth: token.secret, body: { traceId, name: `span ${traceId}`, status } });
  const subscribe = async (receiver: Receiver, events: string[], extra: Record<string, unknown> = {}) => {
    const created = await t.call('POST', '/api/webhooks', { body: { url: receiver.url, events, ...extra } });
    expect(created.status).toBe(201);
    return created.body as { id: string; secret: string; url: string; events: string[]; createdAt: string; updatedAt: string };
  };
  const deliveries = async (subscriptionId: string) => {
    const page = await t.call('GET', `/api/webhooks/${subscriptionId}/deliveries`);
    expect(page.status).toBe(200);
    return page.body.items as Array<Record<string, any>>;
  };
  const track = (receiver: Receiver) => {
    receivers.push(receiver);
    return receiver;
  };

  beforeAll(async () => {
    t = await TestApp.start({ WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_TIMEOUT_MS: '300' });
    token = await t.createToken('webhooks');
    filterId = (await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } })).body.id;
  });
  afterEach(async () => {
    // Every subscription gets every incident's events: each test starts with none.
    for (const item of (await t.call('GET', '/api/webhooks?limit=500')).body.items) await t.call('DELETE', `/api/webhooks/${item.id}`);
    for (const receiver of receivers.splice(0)) await receiver.stop();
  });
  afterAll(async () => {
    await t.close();
  });

  it('registers subscriptions: http(s) URLs only, known events, the secret shown once, 404 for unknown ids', async () => {
    const receiver = track(await Receiver.start());
    const generated = await subscribe(receiver, ['IncidentCreated'], { name: 'on-call bot' });
    expect(generated).toEqual({ id: expect.any(String), name: 'on-call bot', url: receiver.url, events: ['IncidentCreated'], secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/), createdAt: expect.any(String), updatedAt: expect.any(String) });
    const given = await subscribe(receiver, ['IncidentResolved', 'IncidentCreated'], { secret: 'my-own-secret-0123456789' });
    expect(given).toMatchObject({ name: null, events: ['IncidentCreated', 'IncidentResolved'], secret: 'my-own-secret-0123456789' });

    // Never answered again.
    const read = await t.call('GET', `/api/webhooks/${generated.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ id: generated.id, name: 'on-call bot', url: receiver.url, events: ['IncidentCreated'], createdAt: generated.createdAt, updatedAt: generated.updatedAt });
    const first = await t.call('GET', '/api/webhooks?limit=1');
    expect(first.body).toEqual({ items: [expect.objectContaining({ id: given.id })], nextCursor: expect.any(String) });
    const second = await t.call('GET', `/api/webhooks?limit=1&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ items: [expect.objectContaining({ id: generated.id })], nextCursor: null });
    for (const text of [read.text, first.text, second.text]) expect(text).not.toMatch(/whsec_|my-own-secret|"secret"/);
    // Kept as given, so that the service can sign with it.
    expect((await t.db.query('select secret from webhook_subscriptions where id = $1', [given.id])).rows[0].secret).toBe('my-own-secret-0123456789');

    const patched = await t.call('PATCH', `/api/webhooks/${generated.id}`, { body: { events: ['IncidentResolved'], name: null, secret: 'rotated-secret-0123456789' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: generated.id, name: null, events: ['IncidentResolved'] });
    expect(patched.text).not.toContain('rotated-secret');

    const bad = async (method: string, path: string, body: unknown, field: string) => {
      const answer = await t.call(method, path, { body });
      expect({ body, status: answer.status, code: answer.body.code }).toEqual({ body, status: 400, code: 'VALIDATION_FAILED' });
      expect(answer.body.details.map((d: { field: string }) => d.field)).toContain(field);
    };
    await bad('POST', '/api/webhooks', { url: 'ftp://example.com/hook', events: ['IncidentCreated'] }, 'url');
    await bad('POST', '/api/webhooks', { url: 'not a url', events: ['IncidentCreated'] }, 'url');
    await bad('POST', '/api/webhooks', { url: 'javascript:alert(1)', events: ['IncidentCreated'] }, 'url');
    await bad('POST', '/api/webhooks', { url: 'https://user:pass@hooks.example.com/x', events: ['IncidentCreated'] }, 'url');
    await bad('POST', '/api/webhooks', { events: ['IncidentCreated'] }, 'url');
    await bad('POST', '/api/webhooks', { url: receiver.url, events: [] }, 'events');
    await bad('POST', '/api/webhooks', { url: receiver.url, events: ['IncidentDeduplicated'] }, 'events');
    await bad('POST', '/api/webhooks', { url: receiver.url, events: 'IncidentCreated' }, 'events');
    await bad('POST', '/api/webhooks', { url: receiver.url, events: ['IncidentCreated'], secret: 'short' }, 'secret');
    await bad('POST', '/api/webhooks', { url: receiver.url, events: ['IncidentCreated'], active: true }, 'active');
    await bad('PATCH', `/api/webhooks/${generated.id}`, { url: 'file:///etc/passwd' }, 'url');
    await bad('PATCH', `/api/webhooks/${generated.id}`, { secret: null }, 'secret');

    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      for (const [method, path] of [['GET', `/api/webhooks/${id}`], ['PATCH', `/api/webhooks/${id}`], ['DELETE', `/api/webhooks/${id}`], ['GET', `/api/webhooks/${id}/deliveries`]]) {
        const answer = await t.call(method, path, method === 'PATCH' ? { body: { name: 'x' } } : {});
        expect({ method, path, status: answer.status, code: answer.body.code }).toEqual({ method, path, status: 404, code: 'WEBHOOK_NOT_FOUND' });
      }
    }
    expect((await t.call('DELETE', `/api/webhooks/${given.id}`)).status).toBe(204);
    expect((await t.call('GET', `/api/webhooks/${given.id}`)).status).toBe(404);
    expect((await t.call('GET', '/api/webhooks', { auth: token.secret })).status).toBe(401);
  });

  it('POSTs IncidentCreated and IncidentResolved, signed, to a receiver that is up, within a second of the 202', async () => {
    const receiver = track(await Receiver.start());
    const subscription = await subscribe(receiver, ['IncidentCreated', 'IncidentResolved']);

    const started = Date.now();
    const opened = await trace('wh-up', 'running');
    expect(opened.status).toBe(202);
    const incidentId = opened.body.payloads[0].filters[0].incidentId;
    await waitFor('IncidentCreated', () => receiver.calls.length >= 1);
    expect(receiver.calls[0].at - started).toBeLessThan(1000);
    const created = receiver.calls[0];
    expectSigned(created, subscription.secret);
    expect(created.body).toEqual({
      id: expect.any(String),
      event: 'IncidentCreated',
      occurredAt: created.body.data.createdAt,
      data: { incidentId, tokenId: token.id, filterId, title: 'span wh-up', mappedValue: 'wh-up', createdAt: expect.any(String) },
    });

    expect((await trace('wh-up', 'completed')).status).toBe(202);
    await waitFor('IncidentResolved', () => receiver.calls.length >= 2);
    const resolved = receiver.calls[1];
    expectSigned(resolved, subscription.secret);
    expect(resolved.body).toEqual({
      id: expect.any(String),
      event: 'IncidentResolved',
      occurredAt: resolved.body.data.resolvedAt,
      data: { incidentId, tokenId: token.id, filterId, mappedValue: 'wh-up', resolvedBy: 'filter', resolvedAt: expect.any(String) },
    });
    expect(resolved.body.id).not.toBe(created.body.id);

    // Resolving by hand is announced the same way.
    const manual = (await trace('wh-manual', 'running')).body.payloads[0].filters[0].incidentId;
    await waitFor('the second IncidentCreated', () => receiver.calls.length >= 3);
    expect((await t.call('POST', `/api/incidents/${manual}/resolve`)).status).toBe(200);
    await waitFor('the manual IncidentResolved', () => receiver.calls.length >= 4);
    expectSigned(receiver.calls[3], subscription.secret);
    expect(receiver.calls[3].body.data).toMatchObject({ incidentId: manual, resolvedBy: 'admin' });
    // Resolving again changes nothing and announces nothing.
    expect((await t.call('POST', `/api/incidents/${manual}/resolve`)).status).toBe(200);

    await sleep(300);
    expect(receiver.calls).toHaveLength(4);
    const log = await deliveries(subscription.id);
    expect(log.map((d) => d.id)).toEqual(receiver.calls.map((c) => c.body.id).reverse());
    for (const entry of log) {
      expect(entry).toEqual({
        id: expect.any(String),
        event: expect.stringMatching(/^Incident(Created|Resolved)$/),
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 200,
        lastError: null,
        createdAt: expect.any(String),
        lastAttemptAt: expect.any(String),
        deliveredAt: expect.any(String),
        nextAttemptAt: null,
      });
    }
    const page = await t.call('GET', `/api/webhooks/${subscription.id}/deliveries?limit=3`);
    const rest = await t.call('GET', `/api/webhooks/${subscription.id}/deliveries?limit=3&cursor=${page.body.nextCursor}`);
    expect([...page.body.items, ...rest.body.items].map((d: { id: string }) => d.id)).toEqual(log.map((d) => d.id));
    expect(rest.body.nextCursor).toBeNull();
    expect((await t.call('GET', `/api/webhooks/${subscription.id}/deliveries?status=failed`)).body.items).toEqual([]);
    expect((await t.call('GET', `/api/webhooks/${subscription.id}/deliveries?status=lost`)).status).toBe(400);
  });

  it('sends a subscription only the events it asked for', async () => {
    const createdOnly = track(await Receiver.start());
    const resolvedOnly = track(await Receiver.start());
    await subscribe(createdOnly, ['IncidentCreated']);
    await subscribe(resolvedOnly, ['IncidentResolved']);

    await trace('wh-only', 'running');
    await trace('wh-only', 'running'); // deduplicated: no event for webhooks
    await trace('wh-only', 'completed');
    await waitFor('both calls', () => createdOnly.calls.length >= 1 && resolvedOnly.calls.length >= 1);
    await sleep(400);
    expect(createdOnly.calls.map((c) => c.body.event)).toEqual(['IncidentCreated']);
    expect(resolvedOnly.calls.map((c) => c.body.event)).toEqual(['IncidentResolved']);
    expect(createdOnly.calls[0].body.data.incidentId).toBe(resolvedOnly.calls[0].body.data.incidentId);
  });

  it('delivers the events of an idempotent call (inside its transaction) once, and nothing for its replay', async () => {
    const receiver = track(await Receiver.start());
    const subscription = await subscribe(receiver, ['IncidentCreated', 'IncidentResolved']);
    const call = () =>
      t.call('POST', '/v1/trace', {
        auth: token.secret,
        headers: { 'idempotency-key': 'wh-idempotent' },
        body: [{ traceId: 'wh-idem', name: 'idem', status: 'running' }, { traceId: 'wh-idem', name: 'idem', status: 'completed' }],
      });
    const started = Date.now();
    expect((await call()).status).toBe(202);
    await waitFor('both events', () => receiver.calls.length >= 2);
    expect(Math.max(...receiver.calls.map((c) => c.at)) - started).toBeLessThan(1000);
    const replay = await call();
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    await sleep(400);
    // One call's events share a commit and are sent side by side: order by occurredAt, not arrival.
    expect(receiver.calls.map((c) => c.body.event).sort()).toEqual(['IncidentCreated', 'IncidentResolved']);
    expect(new Set(receiver.calls.map((c) => c.body.data.incidentId)).size).toBe(1);
    expect((await deliveries(subscription.id)).map((d) => d.status)).toEqual(['delivered', 'delivered']);
  });

  it('has written the pending delivery when the 202 is answered, in the transaction of the incident', async () => {
    const receiver = track(await Receiver.down());
    const subscription = await subscribe(receiver, ['IncidentCreated']);

    const answer = await trace('wh-outbox', 'running');
    expect(answer.status).toBe(202);
    const { rows } = await t.db.query('select status, event, body, delivered_at from webhook_deliveries where subscription_id = $1', [subscription.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'pending', event: 'IncidentCreated', delivered_at: null });
    expect(JSON.parse(rows[0].body).data.incidentId).toBe(answer.body.payloads[0].filters[0].incidentId);
  });

  it('writes no delivery when the incident change rolls back', async () => {
    const receiver = track(await Receiver.start());
    const subscription = await subscribe(receiver, ['IncidentCreated']);
    // A later handler of the same event fails: the whole call rolls back, the outbox row with it.
    const unsubscribe = t.app.get(EventBus).subscribe('IncidentCreated', () => {
      throw new Error('a handler failed');
    });
    try {
      expect((await trace('wh-rollback', 'running')).status).toBe(500);
    } finally {
      unsubscribe();
    }
    expect((await t.db.query(`select count(*)::int as n from incidents where mapped_value = 'wh-rollback'`)).rows[0].n).toBe(0);
    expect((await t.db.query('select count(*)::int as n from webhook_deliveries where subscription_id = $1', [subscription.id])).rows[0].n).toBe(0);
    await sleep(1200);
    expect(receiver.calls).toHaveLength(0);
  });

  it('retries a receiver that is down until it is up, then delivers', async () => {
    const receiver = track(await Receiver.down());
    const subscription = await subscribe(receiver, ['IncidentCreated']);
    expect((await trace('wh-down', 'running')).status).toBe(202);

    const retrying = await waitFor('two refused attempts', async () => (await deliveries(subscription.id)).find((d) => d.attempts >= 2));
    expect(retrying).toMatchObject({ status: 'pending', lastStatusCode: null, lastError: expect.stringContaining('ECONNREFUSED'), deliveredAt: null, nextAttemptAt: expect.any(String) });

    await receiver.listen();
    await waitFor('the delivery', () => receiver.calls.length >= 1);
    expectSigned(receiver.calls[0], subscription.secret);
    const delivered = await waitFor('delivered', async () => (await deliveries(subscription.id)).find((d) => d.status === 'delivered'));
    expect(delivered).toMatchObject({ id: receiver.calls[0].body.id, lastStatusCode: 200, lastError: null, nextAttemptAt: null, deliveredAt: expect.any(String) });
    expect(delivered.attempts).toBeGreaterThanOrEqual(3);
  });

  it('retries a receiver slower than the attempt timeout', async () => {
    const receiver = track(await Receiver.start());
    receiver.answer = (n) => (n === 0 ? { status: 200, delayMs: 1500 } : { status: 200 });
    const subscription = await subscribe(receiver, ['IncidentCreated']);
    expect((await trace('wh-slow', 'running')).status).toBe(202);

    const delivered = await waitFor('delivered', async () => (await deliveries(subscription.id)).find((d) => d.status === 'delivered'));
    expect(delivered).toMatchObject({ attempts: 2, lastStatusCode: 200, lastError: null });
    expect(receiver.calls).toHaveLength(2);
    // The same delivery, signed afresh: receivers dedupe by X-Intake-Delivery.
    expect(receiver.calls[1].body.id).toBe(receiver.calls[0].body.id);
    expect(receiver.calls[1].raw).toBe(receiver.calls[0].raw);
    for (const call of receiver.calls) expectSigned(call, subscription.secret);
    // The retry waited for the 300 ms timeout, counted from the send; the first call reached the
    // receiver a few ms after it (seen: 292 ms between arrivals on a loaded machine).
    expect(receiver.calls[1].at - receiver.calls[0].at).toBeGreaterThanOrEqual(250);
  });

  it('retries a receiver that answers 500 with growing waits, and delivers once it answers 200', async () => {
    const receiver = track(await Receiver.start());
    let healthy = false;
    receiver.answer = () => ({ status: healthy ? 204 : 500 });
    const subscription = await subscribe(receiver, ['IncidentCreated']);
    expect((await trace('wh-500', 'running')).status).toBe(202);

    await waitFor('three answers of 500', () => receiver.calls.length >= 3);
    const failing = await waitFor('the third failure recorded', async () => (await deliveries(subscription.id)).find((d) => d.attempts >= 3 && d.lastStatusCode === 500));
    expect(failing).toMatchObject({ status: 'pending', lastError: 'answered HTTP 500', deliveredAt: null, nextAttemptAt: expect.any(String) });
    const gaps = receiver.calls.slice(1, 3).map((c, i) => c.at - receiver.calls[i].at);
    expect(gaps[0]).toBeGreaterThanOrEqual(90); // 100 ms, then 200 ms (WEBHOOK_RETRY_BASE_MS=100)
    expect(gaps[1]).toBeGreaterThanOrEqual(190);

    const metricsText = async () => (await t.call('GET', '/metrics', { auth: null })).text;
    const count = (text: string, result: string) => Number(text.match(new RegExp(`webhook_deliveries_total\\{result="${result}"\\} (\\d+)`))?.[1] ?? 0);
    const before = await metricsText();
    healthy = true;
    const delivered = await waitFor('delivered', async () => (await deliveries(subscription.id)).find((d) => d.status === 'delivered'));
    const after = await metricsText();
    expect(count(after, 'delivered')).toBeGreaterThan(count(before, 'delivered'));
    expect(count(after, 'retry')).toBeGreaterThanOrEqual(3);
    expect(delivered).toMatchObject({ lastStatusCode: 204, lastError: null, nextAttemptAt: null });
    expect(delivered.attempts).toBe(receiver.calls.length);
    expect(new Set(receiver.calls.map((c) => c.body.id)).size).toBe(1);
    for (const call of receiver.calls) expectSigned(call, subscription.secret);
  });
});

describe('Outbound webhooks with a short WEBHOOK_MAX_AGE (e2e)', () => {
  let t: TestApp;
  let token: { id: string; secret: string };
  let closed = false;
  const receivers: Receiver[] = [];

  beforeAll(async () => {
    t = await TestApp.start({ WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_MAX_AGE: '1s', WEBHOOK_TIMEOUT_MS: '3000' });
    token = await t.createToken('webhooks');
    await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } });
  });
  afterAll(async () => {
    for (const receiver of receivers) await receiver.stop();
    if (!closed) return t.close();
    await t.db.end();
    await dropTestDatabase(t.databaseUrl);
  });

  const trace = (traceId: string) => t.call('POST', '/v1/trace', { auth: token.secret, body: { traceId, name: traceId, status: 'running' } });

  it('fails a delivery whose receiver stays down past the window', async () => {
    const receiver = await Receiver.down();
    receivers.push(receiver);
    const subscription = (await t.call('POST', '/api/webhooks', { body: { url: receiver.url, events: ['IncidentCreated'] } })).body;
    expect((await trace('wh-expire')).status).toBe(202);
    const started = Date.now();
    const failed = await waitFor('failed', async () => (await t.call('GET', `/api/webhooks/${subscription.id}/deliveries`)).body.items.find((d: any) => d.status === 'failed'), 5000);
    // Attempts at about 0, 0.1, 0.3 and 0.7 s; the next (1.5 s) would fall past the 1 s window.
    expect(failed).toMatchObject({ lastStatusCode: null, lastError: expect.stringContaining('ECONNREFUSED'), deliveredAt: null, nextAttemptAt: null });
    expect(failed.attempts).toBeGreaterThanOrEqual(3);
    expect(failed.attempts).toBeLessThanOrEqual(4);
    expect(Date.now() - started).toBeLessThan(2500);
    await t.call('DELETE', `/api/webhooks/${subscription.id}`);
  });

  it('cuts an attempt in flight short on shutdown, puts it back as due, and sends nothing after', async () => {
    const receiver = await Receiver.start();
    receivers.push(receiver);
    receiver.answer = () => ({ status: 200, delayMs: 2500 });
    const subscription = (await t.call('POST', '/api/webhooks', { body: { url: receiver.url, events: ['IncidentCreated'] } })).body;
    expect((await trace('wh-shutdown')).status).toBe(202);
    await waitFor('the attempt in flight', () => receiver.calls.length >= 1);

    const closing = Date.now();
    await t.app.close();
    closed = true;
    expect(Date.now() - closing).toBeLessThan(2000);
    const { rows } = await t.db.query('select status, attempts, last_error, next_attempt_at from webhook_deliveries where subscription_id = $1', [subscription.id]);
    expect(rows).toEqual([{ status: 'pending', attempts: 1, last_error: 'interrupted: the service was shutting down', next_attempt_at: expect.any(Date) }]);
    expect(rows[0].next_attempt_at.getTime()).toBeLessThanOrEqual(Date.now());
    await sleep(1500);
    expect(receiver.calls).toHaveLength(1);
  });
});
