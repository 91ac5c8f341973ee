import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { TemplatesModule } from '../src/modules/templates/contracts.js';
import { TestApp } from './support/test-app.js';

/** A template module that exists only in this test: importing it is the only change. */
@Module({
  imports: [
    TemplatesModule.register({
      id: 'test-only-pager',
      name: 'Test-only pager',
      description: 'Shows that a template module registers itself.',
      trigger: { payloadKey: 'state', valueContains: 'ALARM', mapIncidentWith: 'alarmId', titleFrom: 'summary', descriptionFrom: null },
      resolve: { payloadKey: 'state', valueContains: 'OK', incidentMappedWith: 'alarmId' },
    }),
  ],
})
class TestOnlyTemplateModule {}

describe('API filters (e2e)', () => {
  let t: TestApp;
  let tokenId: string;

  beforeAll(async () => {
    t = await TestApp.start({}, [TestOnlyTemplateModule]);
    tokenId = (await t.createToken('filters')).id;
  });
  afterAll(async () => {
    await t.close();
  });

  const zipkinValues = {
    trigger: { payloadKey: 'status', valueContains: 'running', mapIncidentWith: 'traceId', titleFrom: 'name', descriptionFrom: 'duration' },
    resolve: { payloadKey: 'status', valueContains: 'completed', incidentMappedWith: 'traceId' },
  };

  it('lists the templates, the test-only one included', async () => {
    const response = await t.call('GET', '/api/templates');
    expect(response.status).toBe(200);
    expect(response.body.items.map((i: { id: string }) => i.id)).toEqual(['alert-webhook', 'prometheus-alertmanager', 'test-only-pager', 'zipkin-tracing']);
    expect(response.body.items.find((i: { id: string }) => i.id === 'zipkin-tracing')).toMatchObject(zipkinValues);
    expect(response.body.items.find((i: { id: string }) => i.id === 'alert-webhook')).toMatchObject({
      trigger: { payloadKey: 'title', valueContains: 'Alert', mapIncidentWith: null, titleFrom: 'title', descriptionFrom: 'body' },
      resolve: null,
    });
  });

  it('offers the template ids as a dropdown in the OpenAPI document', async () => {
    const doc = await t.call('GET', '/docs-json', { auth: null });
    expect(doc.body.components.schemas.CreateFilterDto.properties.template.enum).toEqual(['alert-webhook', 'prometheus-alertmanager', 'test-only-pager', 'zipkin-tracing']);
    expect(doc.body.components.schemas.CreateFilterDto.properties.template.title).toBe('Select Integration Template');
  });

  it('fills every value from a template', async () => {
    const created = await t.call('POST', '/api/filters', { body: { tokenId, template: 'zipkin-tracing' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ tokenId, template: 'zipkin-tracing', name: null, ...zipkinValues });
    const read = await t.call('GET', `/api/filters/${created.body.id}`);
    expect(read.body).toEqual(created.body);
  });

  it('fills from a template registered by a module of its own', async () => {
    const created = await t.call('POST', '/api/filters', { body: { tokenId, template: 'test-only-pager' } });
    expect(created.status).toBe(201);
    expect(created.body.trigger).toMatchObject({ payloadKey: 'state', valueContains: 'ALARM', mapIncidentWith: 'alarmId' });
  });

  it('lets values given beside a template replace the template\'s, one by one', async () => {
    const created = await t.call('POST', '/api/filters', {
      body: { tokenId, template: 'zipkin-tracing', name: 'tags', trigger: { payloadKey: 'tags.status', descriptionFrom: null }, resolve: { payloadKey: 'tags.status' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.trigger).toEqual({ ...zipkinValues.trigger, payloadKey: 'tags.status', descriptionFrom: null });
    expect(created.body.resolve).toEqual({ ...zipkinValues.resolve, payloadKey: 'tags.status' });
  });

  it('removes a template\'s resolve part with resolve: null', async () => {
    const created = await t.call('POST', '/api/filters', { body: { tokenId, template: 'zipkin-tracing', resolve: null } });
    expect(created.status).toBe(201);
    expect(created.body.resolve).toBeNull();
  });

  it('creates a filter without a template', async () => {
    const created = await t.call('POST', '/api/filters', { body: { tokenId, name: 'manual', trigger: { payloadKey: 'level', valueContains: 'error', titleFrom: 'message' } } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'manual',
      template: null,
      trigger: { payloadKey: 'level', valueContains: 'error', titleFrom: 'message', mapIncidentWith: null, descriptionFrom: null },
      resolve: null,
    });
  });

  it('answers an unknown template with a 400 listing the known ones, writing nothing', async () => {
    const before = await t.count('filters');
    const response = await t.call('POST', '/api/filters', { body: { tokenId, template: 'jaeger' } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'TEMPLATE_UNKNOWN', details: { knownTemplates: ['alert-webhook', 'prometheus-alertmanager', 'test-only-pager', 'zipkin-tracing'] } });
    expect(response.body.message).toContain('zipkin-tracing');
    expect(await t.count('filters')).toBe(before);
  });

  it.each([
    ['no trigger and no template', {}, ['trigger.payloadKey', 'trigger.valueContains', 'trigger.titleFrom']],
    ['a trigger without titleFrom', { trigger: { payloadKey: 'a', valueContains: 'b' } }, ['trigger.titleFrom']],
    ['a partial resolve', { trigger: { payloadKey: 'a', valueContains: 'b', titleFrom: 'c' }, resolve: { payloadKey: 'a' } }, ['resolve']],
    ['a partial resolve over a template', { template: 'zipkin-tracing', resolve: { valueContains: null } }, ['resolve']],
  ])('rejects %s with a 400 naming the values', async (_, body, fields) => {
    const before = await t.count('filters');
    const response = await t.call('POST', '/api/filters', { body: { tokenId, ...body } });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('FILTER_INVALID');
    for (const field of fields) expect(response.body.message).toContain(field);
    expect(await t.count('filters')).toBe(before);
  });

  it.each([
    ['an unknown field in trigger', { trigger: { payloadKey: 'a', valueContains: 'b', titleFrom: 'c', extra: 1 } }, 'trigger.extra'],
    ['an empty valueContains', { trigger: { payloadKey: 'a', valueContains: '', titleFrom: 'c' } }, 'trigger.valueContains'],
    ['a payloadKey of 501 characters', { trigger: { payloadKey: 'k'.repeat(501), valueContains: 'b', titleFrom: 'c' } }, 'trigger.payloadKey'],
    ['a trigger that is not an object', { trigger: 'status' }, 'trigger'],
    ['payloadKey null', { trigger: { payloadKey: null, valueContains: 'b', titleFrom: 'c' } }, 'trigger.payloadKey'],
  ])('rejects %s with a 400 naming the field', async (_, body, field) => {
    const response = await t.call('POST', '/api/filters', { body: { tokenId, ...body } });
    expect(response.status).toBe(400);
    expect(response.body.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it.each(['00000000-0000-4000-8000-000000000000', 'not-a-uuid'])('answers 404 for a filter of the unknown token %s', async (unknown) => {
    const response = await t.call('POST', '/api/filters', { body: { tokenId: unknown, template: 'zipkin-tracing' } });
    expect(response.status).toBe(404);
    expect(response.body.code).toBe('TOKEN_NOT_FOUND');
  });

  it('answers 404 for a filter of a revoked token', async () => {
    const revoked = await t.createToken('revoked');
    await t.call('DELETE', `/api/tokens/${revoked.id}`);
    const response = await t.call('POST', '/api/filters', { body: { tokenId: revoked.id, template: 'zipkin-tracing' } });
    expect(response.status).toBe(404);
  });

  it('edits one value at a time and checks the whole filter', async () => {
    const { body: filter } = await t.call('POST', '/api/filters', { body: { tokenId, template: 'zipkin-tracing' } });
    const edited = await t.call('PATCH', `/api/filters/${filter.id}`, { body: { name: 'renamed', trigger: { valueContains: 'started' } } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ name: 'renamed', trigger: { ...zipkinValues.trigger, valueContains: 'started' }, resolve: zipkinValues.resolve });
    expect(Date.parse(edited.body.updatedAt)).toBeGreaterThanOrEqual(Date.parse(filter.updatedAt));
    const partial = await t.call('PATCH', `/api/filters/${filter.id}`, { body: { resolve: { payloadKey: null } } });
    expect(partial.status).toBe(400);
    const unchanged = await t.call('GET', `/api/filters/${filter.id}`);
    expect(unchanged.body.resolve).toEqual(zipkinValues.resolve);
    const removed = await t.call('PATCH', `/api/filters/${filter.id}`, { body: { resolve: null } });
    expect(removed.body.resolve).toBeNull();
    const cleared = await t.call('PATCH', `/api/filters/${filter.id}`, { body: { trigger: { mapIncidentWith: null } } });
    expect(cleared.body.trigger.mapIncidentWith).toBeNull();
  });

  it('deletes a filter', async () => {
    const { body: filter } = await t.call('POST', '/api/filters', { body: { tokenId, template: 'alert-webhook' } });
    expect((await t.call('DELETE', `/api/filters/${filter.id}`)).status).toBe(204);
    expect((await t.call('GET', `/api/filters/${filter.id}`)).status).toBe(404);
    expect((await t.call('DELETE', `/api/filters/${filter.id}`)).status).toBe(404);
  });

  it('lists a token\'s filters, newest first', async () => {
    const other = await t.createToken('other');
    const a = await t.call('POST', '/api/filters', { body: { tokenId: other.id, template: 'zipkin-tracing' } });
    const b = await t.call('POST', '/api/filters', { body: { tokenId: other.id, template: 'alert-webhook' } });
    const list = await t.call('GET', `/api/filters?tokenId=${other.id}`);
    expect(list.status).toBe(200);
    expect(list.body.items.map((f: { id: string }) => f.id)).toEqual([b.body.id, a.body.id]);
    expect((await t.call('GET', '/api/filters?tokenId=nope')).status).toBe(400);
  });

  describe('dry run', () => {
    let filterId: string;
    beforeAll(async () => {
      filterId = (await t.call('POST', '/api/filters', { body: { tokenId, template: 'zipkin-tracing' } })).body.id;
    });

    it('says what the trigger would do, writing nothing', async () => {
      const before = await t.count('incidents');
      const response = await t.call('POST', `/api/filters/${filterId}/test`, {
        body: { payload: { traceId: 'abc', name: 'checkout', status: 'running', duration: 1200 } },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        action: 'trigger',
        trigger: { matched: true, reason: null, title: 'checkout', description: '1200', mappedValue: 'abc' },
        resolve: { matched: false, reason: expect.stringContaining('does not contain "completed"'), mappedValue: null },
      });
      expect(await t.count('incidents')).toBe(before);
    });

    it('says the resolve would act first', async () => {
      const response = await t.call('POST', `/api/filters/${filterId}/test`, { body: { payload: { traceId: 'abc', status: 'completed' } } });
      expect(response.body.action).toBe('resolve');
      expect(response.body.resolve).toEqual({ matched: true, reason: null, mappedValue: 'abc' });
    });

    it('explains why nothing matched', async () => {
      const response = await t.call('POST', `/api/filters/${filterId}/test`, { body: { payload: { traceId: 'abc', state: 'running' } } });
      expect(response.body.action).toBe('none');
      expect(response.body.trigger.reason).toContain('"status"');
      expect(response.body.trigger.reason).toContain('absent');
    });

    it('rejects a payload that is not an object', async () => {
      expect((await t.call('POST', `/api/filters/${filterId}/test`, { body: { payload: [1] } })).status).toBe(400);
      expect((await t.call('POST', `/api/filters/${filterId}/test`, { body: {} })).status).toBe(400);
    });
  });
});
