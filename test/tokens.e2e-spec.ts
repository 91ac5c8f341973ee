import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { TestApp } from './support/test-app.js';

describe('API tokens (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start();
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a token and shows its secret only once', async () => {
    const created = await t.call('POST', '/api/tokens', { body: { name: 'zipkin-prod' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'zipkin-prod',
      debug: false,
      debugEnabledAt: null,
      debugExpiresAt: null,
      rateLimitPerMinute: null,
      createdAt: expect.any(String),
      lastUsedAt: null,
      token: expect.stringMatching(/^iit_[A-Za-z0-9_-]{43}$/),
      endpointSettings: expect.objectContaining({ tokenId: created.body.id, secretPlaceholder: null }),
    });
    const read = await t.call('GET', `/api/tokens/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).not.toHaveProperty('token');
    expect(read.text).not.toContain(created.body.token);
    const list = await t.call('GET', '/api/tokens');
    expect(list.text).not.toContain(created.body.token);
  });

  it('stores only a SHA-256 hash of the secret', async () => {
    const { id, secret } = await t.createToken('hashed');
    const { rows } = await t.db.query('select * from api_tokens where id = $1', [id]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0])).not.toContain(secret);
    expect(JSON.stringify(rows[0])).not.toContain(secret.slice(4));
    expect(rows[0].secret_hash).toBe(createHash('sha256').update(secret).digest('hex'));
  });

  it('turns debug on for 48 hours and off again', async () => {
    const created = await t.call('POST', '/api/tokens', { body: { name: 'debugging', debug: true } });
    expect(created.body.debug).toBe(true);
    const window = Date.parse(created.body.debugExpiresAt) - Date.parse(created.body.debugEnabledAt);
    expect(window).toBe(48 * 3600 * 1000);
    const off = await t.call('PATCH', `/api/tokens/${created.body.id}`, { body: { debug: false } });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ debug: false, debugEnabledAt: null, debugExpiresAt: null });
    const { rows } = await t.db.query('select debug_expires_at from api_tokens where id = $1', [created.body.id]);
    expect(rows[0].debug_expires_at).toBeNull();
  });

  it('restarts the debug window when debug is turned on again', async () => {
    const created = await t.call('POST', '/api/tokens', { body: { name: 'again', debug: true } });
    await new Promise((r) => setTimeout(r, 20));
    const again = await t.call('PATCH', `/api/tokens/${created.body.id}`, { body: { debug: true } });
    expect(Date.parse(again.body.debugEnabledAt)).toBeGreaterThan(Date.parse(created.body.debugEnabledAt));
    expect(Date.parse(again.body.debugExpiresAt)).toBeGreaterThan(Date.parse(created.body.debugExpiresAt));
  });

  it('renames and sets a rate limit', async () => {
    const { id } = await t.createToken('old name');
    const renamed = await t.call('PATCH', `/api/tokens/${id}`, { body: { name: 'new name', rateLimitPerMinute: 120 } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'new name', rateLimitPerMinute: 120 });
    expect((await t.call('GET', `/api/tokens/${id}`)).body.name).toBe('new name');
  });

  it.each([
    ['a missing name', {}, 'name'],
    ['an empty name', { name: '' }, 'name'],
    ['a name of 201 characters', { name: 'x'.repeat(201) }, 'name'],
    ['a name that is not a string', { name: 42 }, 'name'],
    ['an unknown field', { name: 'ok', secret: 'mine' }, 'secret'],
    ['debug that is not a boolean', { name: 'ok', debug: 'yes' }, 'debug'],
    ['a rate limit of 0', { name: 'ok', rateLimitPerMinute: 0 }, 'rateLimitPerMinute'],
  ])('rejects %s with a 400 naming the field, writing nothing', async (_, body, field) => {
    const before = await t.count('api_tokens');
    const response = await t.call('POST', '/api/tokens', { body });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ statusCode: 400, error: 'Bad Request', code: 'VALIDATION_FAILED' });
    expect(response.body.details.map((d: { field: string }) => d.field)).toContain(field);
    expect(await t.count('api_tokens')).toBe(before);
  });

  it('accepts a name of exactly 200 characters', async () => {
    const response = await t.call('POST', '/api/tokens', { body: { name: 'x'.repeat(200) } });
    expect(response.status).toBe(201);
  });

  it('rejects malformed JSON and a non-JSON content type', async () => {
    const malformed = await t.call('POST', '/api/tokens', { rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ statusCode: 400, code: 'JSON_INVALID' });
    const text = await t.call('POST', '/api/tokens', { rawBody: 'name=x', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.statusCode).toBe(415);
  });

  it('rejects unknown fields on update', async () => {
    const { id } = await t.createToken('strict');
    const response = await t.call('PATCH', `/api/tokens/${id}`, { body: { token: 'x' } });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('property token should not exist');
  });

  it.each(['not-an-id', '00000000-0000-4000-8000-000000000000', "1' or '1'='1"])('answers 404 for the id %s', async (id) => {
    for (const method of ['GET', 'PATCH', 'DELETE']) {
      const response = await t.call(method, `/api/tokens/${encodeURIComponent(id)}`, method === 'PATCH' ? { body: { name: 'x' } } : {});
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ statusCode: 404, error: 'Not Found', code: 'TOKEN_NOT_FOUND' });
    }
  });

  it('revokes: the token is gone from the API', async () => {
    const { id } = await t.createToken('to revoke');
    const deleted = await t.call('DELETE', `/api/tokens/${id}`);
    expect(deleted.status).toBe(204);
    expect((await t.call('GET', `/api/tokens/${id}`)).status).toBe(404);
    expect((await t.call('DELETE', `/api/tokens/${id}`)).status).toBe(404);
    const list = await t.call('GET', '/api/tokens?limit=500');
    expect(list.body.items.map((i: { id: string }) => i.id)).not.toContain(id);
  });

  it('pages newest first with a cursor', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await t.createToken(`page ${i}`)).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await t.call('GET', `/api/tokens?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      expect(page.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.items.map((i: { id: string }) => i.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.slice(0, 5)).toEqual([...ids].reverse());
  });

  it.each(['limit=0', 'limit=501', 'limit=abc', 'cursor=garbage', 'limit=1.5', 'foo=bar'])('rejects the query %s with a 400', async (query) => {
    const response = await t.call('GET', `/api/tokens?${query}`);
    expect(response.status).toBe(400);
    expect(response.body.statusCode).toBe(400);
  });
});
