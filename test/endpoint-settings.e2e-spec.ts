import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { promisify } from 'node:util';
import zipkin from 'zipkin';
import { HttpLogger } from 'zipkin-transport-http';
import { TestApp } from './support/test-app.js';

const run = promisify(execFile);

/** Runs a pasted line in a POSIX shell, as an operator would; returns what it printed. */
async function paste(line: string): Promise<string> {
  const { stdout } = await run('sh', ['-c', line], { timeout: 10_000 });
  return stdout;
}

describe('Endpoint settings (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(async () => {
    await t.close();
  });

  /** A token, its secret, and its settings as GET …/endpoint-settings answers them. */
  async function tokenWithSettings(name: string) {
    const created = await t.call('POST', '/api/tokens', { body: { name } });
    expect(created.status).toBe(201);
    const read = await t.call('GET', `/api/tokens/${created.body.id}/endpoint-settings`);
    expect(read.status).toBe(200);
    return { id: created.body.id as string, secret: created.body.token as string, created: created.body, read: read.body, readText: read.text };
  }

  it('answers the URLs of the listening address, the Zipkin keys, the header, the webhook body and curl lines; never the secret', async () => {
    const { id, secret, read, readText } = await tokenWithSettings('settings-shape');
    expect(read).toEqual({
      tokenId: id,
      secretPlaceholder: '<API token>',
      baseUrl: t.baseUrl,
      traceUrl: `${t.baseUrl}/v1/trace`,
      alertUrl: `${t.baseUrl}/v1/alert`,
      headers: { Authorization: 'Bearer <API token>', 'Content-Type': 'application/json' },
      zipkin: {
        properties: expect.stringContaining(`zipkin.reporter.http.endpoint=${t.baseUrl}/v1/trace\nzipkin.reporter.http.json=true\nzipkin.reporter.http.messageMaxBytes=5242880\n`),
        json: { 'zipkin.reporter.http.endpoint': `${t.baseUrl}/v1/trace`, 'zipkin.reporter.http.json': true, 'zipkin.reporter.http.messageMaxBytes': 5242880 },
        headers: { Authorization: 'Bearer <API token>' },
      },
      alertWebhook: {
        url: `${t.baseUrl}/v1/alert`,
        method: 'POST',
        headers: { Authorization: 'Bearer <API token>', 'Content-Type': 'application/json' },
        bodyTemplate: '{"body": "{{body}}", "title": "{{title}}", "link": "{{link}}"}',
        description: expect.stringContaining('template variables'),
      },
      curl: { trace: expect.stringMatching(/^curl /), alert: expect.stringMatching(/^curl /) },
    });
    expect(readText).not.toContain(secret);
    expect(readText).not.toContain(secret.slice(4));
  });

  it('carries the same settings with the real secret in the answer to POST /api/tokens, that once', async () => {
    const { secret, created, read } = await tokenWithSettings('settings-created');
    const filled = JSON.parse(JSON.stringify(read).replaceAll('<API token>', secret));
    expect(created.endpointSettings).toEqual({ ...filled, secretPlaceholder: null });
    expect(created.endpointSettings.headers.Authorization).toBe(`Bearer ${secret}`);
    expect((await t.call('GET', `/api/tokens/${created.id}`)).text).not.toContain(secret);
  });

  it('has curl lines that, pasted with the secret, open incidents through both intake endpoints', async () => {
    const { id, secret, read } = await tokenWithSettings('settings-curl');
    const trace = await t.call('POST', '/api/filters', { body: { tokenId: id, template: 'zipkin-tracing' } });
    const alert = await t.call('POST', '/api/filters', { body: { tokenId: id, template: 'alert-webhook' } });
    expect([trace.status, alert.status]).toEqual([201, 201]);

    const traceAnswer = JSON.parse(await paste(read.curl.trace.replaceAll(read.secretPlaceholder, secret)));
    const traceOutcome = traceAnswer.payloads[0].filters.find((f: any) => f.filterId === trace.body.id);
    expect(traceOutcome).toMatchObject({ action: 'created', incidentId: expect.any(String) });

    const alertAnswer = JSON.parse(await paste(read.curl.alert.replaceAll(read.secretPlaceholder, secret)));
    const alertOutcome = alertAnswer.payloads[0].filters.find((f: any) => f.filterId === alert.body.id);
    expect(alertOutcome).toMatchObject({ action: 'created', incidentId: expect.any(String) });

    const incidents = (await t.call('GET', `/api/incidents?tokenId=${id}`)).body.items;
    expect(incidents).toHaveLength(2);
    expect((await t.call('GET', `/api/incidents/${alertOutcome.incidentId}`)).body).toMatchObject({
      filterId: alert.body.id,
      status: 'open',
      title: expect.stringContaining('Alert'),
      description: expect.stringContaining("It's a test alert"),
    });
    expect((await t.call('GET', `/api/incidents/${traceOutcome.incidentId}`)).body).toMatchObject({ filterId: trace.body.id, status: 'open' });
  });

  it('has curl lines that are refused as pasted, with the placeholder instead of the secret', async () => {
    const { read } = await tokenWithSettings('settings-placeholder');
    const answer = JSON.parse(await paste(read.curl.alert));
    expect(answer).toMatchObject({ statusCode: 401 });
  });

  it('configures the real Zipkin reporter from zipkin.reporter.http.* and the header', async () => {
    const { id, secret, read } = await tokenWithSettings('settings-zipkin');
    await t.call('POST', '/api/filters', {
      body: { tokenId: id, template: 'zipkin-tracing', trigger: { payloadKey: 'tags.status' }, resolve: { payloadKey: 'tags.status' } },
    });
    const keys = read.zipkin.json;
    expect(keys['zipkin.reporter.http.json']).toBe(true);
    const logger = new HttpLogger({
      endpoint: keys['zipkin.reporter.http.endpoint'],
      jsonEncoder: zipkin.jsonEncoder.JSON_V2,
      maxPayloadSize: keys['zipkin.reporter.http.messageMaxBytes'],
      headers: { Authorization: read.zipkin.headers.Authorization.replaceAll(read.secretPlaceholder, secret) },
      httpInterval: 20,
    }) as HttpLogger & EventEmitter; // an EventEmitter ('success', 'error'), which its typings leave out
    const errors: Error[] = [];
    logger.on('error', (error: Error) => errors.push(error));
    const sent = new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no 202 in time: ${errors.join('; ')}`)), 5000);
      logger.once('success', (response: Response) => {
        clearTimeout(timer);
        void response.json().then(resolve, reject);
      });
    });
    const tracer = new zipkin.Tracer({ ctxImpl: new zipkin.ExplicitContext(), recorder: new zipkin.BatchRecorder({ logger }), localServiceName: 'settings' });
    const root = tracer.createRootId();
    tracer.letId(root, () => tracer.local('checkout', () => tracer.recordBinary('status', 'running')));
    const answer = await sent;
    expect(answer.payloads[0].filters[0]).toMatchObject({ action: 'created' });
    const incident = (await t.call('GET', `/api/incidents/${answer.payloads[0].filters[0].incidentId}`)).body;
    expect(incident).toMatchObject({ tokenId: id, title: 'checkout', mappedValue: root.traceId, status: 'open' });
    expect(errors).toEqual([]);
  });

  it.each([
    ['an unknown id', () => '7d0c7a4e-5a54-4d1b-9f6e-1f2a3b4c5d6e'],
    ['a malformed id', () => 'not-an-id'],
  ])('answers 404 for %s', async (_, id) => {
    const answer = await t.call('GET', `/api/tokens/${id()}/endpoint-settings`);
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ statusCode: 404, code: 'TOKEN_NOT_FOUND' });
  });

  it('answers 404 for a revoked token, and 401 without the admin key', async () => {
    const { id, secret } = await tokenWithSettings('settings-revoked');
    expect((await t.call('GET', `/api/tokens/${id}/endpoint-settings`, { auth: secret })).status).toBe(401);
    expect((await t.call('GET', `/api/tokens/${id}/endpoint-settings`, { auth: null })).status).toBe(401);
    expect((await t.call('DELETE', `/api/tokens/${id}`)).status).toBe(204);
    expect((await t.call('GET', `/api/tokens/${id}/endpoint-settings`)).status).toBe(404);
  });

  it('is documented in the OpenAPI document with examples', async () => {
    const doc = (await t.call('GET', '/docs-json')).body;
    const operation = doc.paths['/api/tokens/{id}/endpoint-settings'].get;
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.EndpointSettingsDto.properties)).toEqual(
      expect.arrayContaining(['tokenId', 'secretPlaceholder', 'baseUrl', 'traceUrl', 'alertUrl', 'headers', 'zipkin', 'alertWebhook', 'curl']),
    );
    expect(schemas.ZipkinReporterPropertiesDto.properties['zipkin.reporter.http.messageMaxBytes'].example).toBe(5242880);
    expect(schemas.CurlCommandsDto.properties.trace.example).toContain('https://intake.example.com/v1/trace');
    expect(schemas.CreatedTokenDto.properties.endpointSettings).toBeDefined();
  });
});

describe('Endpoint settings with PUBLIC_BASE_URL (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ PUBLIC_BASE_URL: 'https://intake.example.com/monitoring/' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('builds every URL from it, its trailing slash dropped', async () => {
    const { id } = await t.createToken('public');
    const { body, text } = await t.call('GET', `/api/tokens/${id}/endpoint-settings`);
    expect(body).toMatchObject({
      baseUrl: 'https://intake.example.com/monitoring',
      traceUrl: 'https://intake.example.com/monitoring/v1/trace',
      alertUrl: 'https://intake.example.com/monitoring/v1/alert',
      zipkin: { json: { 'zipkin.reporter.http.endpoint': 'https://intake.example.com/monitoring/v1/trace' } },
      alertWebhook: { url: 'https://intake.example.com/monitoring/v1/alert' },
    });
    expect(body.curl.trace).toContain("'https://intake.example.com/monitoring/v1/trace'");
    expect(text).not.toContain(t.baseUrl);
  });
});
