import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { EventBus } from '../src/shared/events/event-bus.js';
import type { DomainEventName } from '../src/shared/events/domain-events.js';
import { TestApp } from './support/test-app.js';

describe('Application (e2e)', () => {
  let t: TestApp;
  const seen: Array<{ name: DomainEventName; event: unknown }> = [];

  beforeAll(async () => {
    t = await TestApp.start();
    const bus = t.app.get(EventBus);
    for (const name of ['TokenCreated', 'TokenDebugChanged', 'TokenRevoked', 'FilterCreated', 'IncidentCreated', 'IncidentDeduplicated', 'IncidentResolved'] as const) {
      bus.subscribe(name, (event: unknown) => {
        seen.push({ name, event });
      });
    }
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['an intake answer', 'POST', '/v1/trace', 401],
    ['an admin answer', 'GET', '/api/tokens', 200],
    ['a 404', 'GET', '/nowhere', 404],
    ['a URL the router cannot decode', 'GET', '/api/tokens/%E0%A4%A', 400],
    ['the health check', 'GET', '/health', 200],
  ])('sends helmet\'s headers on %s', async (_, method, path, status) => {
    const answer = await t.call(method, path, { headers: { 'content-type': 'application/json' }, rawBody: method === 'POST' ? '{}' : undefined });
    expect(answer.status).toBe(status);
    expect(Object.fromEntries(['content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy', 'strict-transport-security'].map((h) => [h, answer.headers.get(h)]))).toEqual({
      'content-security-policy': expect.stringContaining("default-src 'self'"),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'SAMEORIGIN',
      'referrer-policy': 'no-referrer',
      'strict-transport-security': null, // plain HTTP: the proxy in front sends HSTS
    });
  });

  describe('OpenAPI document', () => {
    let doc: any;
    beforeAll(async () => {
      doc = (await t.call('GET', '/docs-json', { auth: null })).body;
    });

    it('declares both bearer schemes', () => {
      expect(doc.components.securitySchemes).toMatchObject({
        'admin-key': { type: 'http', scheme: 'bearer' },
        'api-token': { type: 'http', scheme: 'bearer' },
      });
    });

    it('lists every route with its security and its errors', () => {
      const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.entries(methods as Record<string, any>).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
      );
      expect(operations.map((o) => o.route).sort()).toEqual(
        [
          'DELETE /api/filters/{id}', 'DELETE /api/tokens/{id}', 'GET /api/filters', 'GET /api/filters/{id}', 'GET /api/incidents', 'GET /api/incidents/{id}',
          'GET /api/templates', 'GET /api/tokens', 'GET /api/tokens/{id}', 'GET /health', 'GET /health/ready', 'PATCH /api/filters/{id}', 'PATCH /api/tokens/{id}',
          'POST /api/filters', 'POST /api/filters/{id}/test', 'POST /api/incidents/{id}/resolve', 'POST /api/tokens', 'POST /v1/alert', 'POST /v1/trace',
          'GET /api/api-log', 'GET /api/api-log/{id}', 'POST /api/filters/backtest', 'POST /api/filters/{id}/backtest', 'GET /api/tokens/{id}/endpoint-settings', 'GET /metrics',
          'POST /api/webhooks', 'GET /api/webhooks', 'GET /api/webhooks/{id}', 'PATCH /api/webhooks/{id}', 'DELETE /api/webhooks/{id}', 'GET /api/webhooks/{id}/deliveries',
        ].sort(),
      );
      for (const { route, op } of operations) {
        const schemes = (op.security ?? []).flatMap((s: object) => Object.keys(s));
        if (route.includes(' /api/')) expect({ route, schemes }).toEqual({ route, schemes: ['admin-key'] });
        else if (route.includes(' /v1/')) expect({ route, schemes }).toEqual({ route, schemes: ['api-token'] });
        else expect({ route, schemes }).toEqual({ route, schemes: [] });
        if (schemes.length > 0) expect({ route, has401: '401' in op.responses }).toEqual({ route, has401: true });
      }
      expect(Object.keys(doc.paths['/v1/trace'].post.responses).sort()).toEqual(['202', '400', '401', '413', '415', '422', '429', '503']);
    });

    it('serves Swagger UI', async () => {
      const page = await t.call('GET', '/docs', { auth: null });
      expect(page.status).toBe(200);
      expect(page.text).toContain('swagger');
    });
  });

  it('answers an unknown route with a JSON 404', async () => {
    const response = await t.call('GET', '/api/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'ROUTE_NOT_FOUND' });
  });

  it('reports liveness and readiness without auth', async () => {
    expect((await t.call('GET', '/health', { auth: null })).body).toEqual({ status: 'ok' });
    expect((await t.call('GET', '/health/ready', { auth: null })).body).toEqual({ status: 'ok', database: 'up' });
  });

  it('publishes domain events with ids and plain values', async () => {
    seen.length = 0;
    const token = await t.createToken('events', { debug: true });
    await t.call('PATCH', `/api/tokens/${token.id}`, { body: { debug: false } });
    const filter = (await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'zipkin-tracing' } })).body;
    const post = (status: string) =>
      t.call('POST', '/v1/trace', { auth: token.secret, body: { traceId: 'ev-1', name: 'evented', status } });
    const incidentId = (await post('running')).body.payloads[0].filters[0].incidentId;
    await post('running');
    await post('completed');
    await t.call('DELETE', `/api/tokens/${token.id}`);

    expect(seen.map((s) => s.name)).toEqual(['TokenCreated', 'TokenDebugChanged', 'FilterCreated', 'IncidentCreated', 'IncidentDeduplicated', 'IncidentResolved', 'TokenRevoked']);
    expect(seen[0].event).toEqual({ tokenId: token.id, name: 'events', debug: true });
    expect(seen[1].event).toEqual({ tokenId: token.id, debug: false, debugExpiresAt: null });
    expect(seen[3].event).toEqual({ incidentId, tokenId: token.id, filterId: filter.id, title: 'evented', mappedValue: 'ev-1', createdAt: expect.any(String) });
    expect(seen[4].event).toEqual({ incidentId, tokenId: token.id, filterId: filter.id, mappedValue: 'ev-1', triggerCount: 2, lastTriggeredAt: expect.any(String) });
    expect(seen[5].event).toEqual({ incidentId, tokenId: token.id, filterId: filter.id, mappedValue: 'ev-1', resolvedBy: 'filter', resolvedAt: expect.any(String) });
    expect(seen[6].event).toEqual({ tokenId: token.id });
    for (const { event } of seen) expect(JSON.parse(JSON.stringify(event))).toEqual(event);
  });
});
