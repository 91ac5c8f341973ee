import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import zipkin from 'zipkin';
import type { EventEmitter } from 'node:events';
import { HttpLogger } from 'zipkin-transport-http';
import { TestApp } from './support/test-app.js';

type Encoder = typeof zipkin.jsonEncoder.JSON_V2;

/** The real Zipkin reporter (zipkin + zipkin-transport-http) pointed at /v1/trace with a bearer token. */
function reporter(endpoint: string, secret: string, jsonEncoder: Encoder) {
  // HttpLogger is an EventEmitter ('success', 'error'), which its typings leave out.
  const logger = new HttpLogger({ endpoint, jsonEncoder, headers: { Authorization: `Bearer ${secret}` }, httpInterval: 20 }) as HttpLogger & EventEmitter;
  const errors: Error[] = [];
  logger.on('error', (error: Error) => errors.push(error));
  const tracer = new zipkin.Tracer({ ctxImpl: new zipkin.ExplicitContext(), recorder: new zipkin.BatchRecorder({ logger }), localServiceName: 'checkout' });
  /** Records one local span in `traceId` with a status tag and waits until the reporter got 202. */
  const span = (rootId: InstanceType<typeof zipkin.TraceId>, name: string, status: string) =>
    new Promise<any>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no 202 in time: ${errors.join('; ')}`)), 5000);
      logger.once('success', (response: Response) => {
        clearTimeout(timer);
        void response.json().then(resolve, reject);
      });
      tracer.letId(rootId, () => tracer.local(name, () => tracer.recordBinary('status', status)));
    });
  return { tracer, span, errors };
}

describe('Zipkin reporter (e2e, real client)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(async () => {
    await t.close();
  });

  it('opens incidents from JSON_V2 spans tagged running and resolves them on completed', async () => {
    const token = await t.createToken('zipkin-v2');
    const filter = await t.call('POST', '/api/filters', {
      body: { tokenId: token.id, template: 'zipkin-tracing', trigger: { payloadKey: 'tags.status' }, resolve: { payloadKey: 'tags.status' } },
    });
    const { tracer, span, errors } = reporter(`${t.baseUrl}/v1/trace`, token.secret, zipkin.jsonEncoder.JSON_V2);
    const root = tracer.createRootId();

    const started = await span(root, 'process-order', 'running');
    const outcome = started.payloads[0].filters[0];
    expect(outcome).toMatchObject({ filterId: filter.body.id, action: 'created' });
    const opened = (await t.call('GET', `/api/incidents/${outcome.incidentId}`)).body;
    expect(opened).toMatchObject({ title: 'process-order', mappedValue: root.traceId, status: 'open' });
    expect(Number(opened.description)).toBeGreaterThanOrEqual(0);

    const completed = await span(root, 'process-order', 'completed');
    expect(completed.payloads[0].filters[0]).toMatchObject({ action: 'resolved', incidentId: outcome.incidentId });
    expect((await t.call('GET', `/api/incidents/${outcome.incidentId}`)).body.status).toBe('resolved');
    expect(errors).toEqual([]);
  });

  it('accepts the default JSON_V1 encoding, which a filter can match', async () => {
    const token = await t.createToken('zipkin-v1');
    await t.call('POST', '/api/filters', {
      body: { tokenId: token.id, trigger: { payloadKey: 'binaryAnnotations', valueContains: '"value":"running"', mapIncidentWith: 'traceId', titleFrom: 'name' } },
    });
    const { tracer, span, errors } = reporter(`${t.baseUrl}/v1/trace`, token.secret, zipkin.jsonEncoder.JSON_V1);
    const root = tracer.createRootId();
    const answer = await span(root, 'v1-span', 'running');
    const outcome = answer.payloads[0].filters[0];
    expect(outcome.action).toBe('created');
    const opened = (await t.call('GET', `/api/incidents/${outcome.incidentId}`)).body;
    expect(opened).toMatchObject({ title: 'v1-span', mappedValue: root.traceId });
    expect(JSON.parse(opened.description)).toMatchObject({ traceId: root.traceId, binaryAnnotations: [expect.objectContaining({ key: 'status', value: 'running' })] });
    expect(errors).toEqual([]);
  });
});
