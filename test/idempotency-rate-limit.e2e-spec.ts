import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { IdempotencyCleanupJob } from '../src/modules/intake/jobs/idempotency-cleanup.job.js';
import { TestApp } from './support/test-app.js';

describe('Idempotency keys and rate limits (e2e)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await TestApp.start({ INTAKE_RATE_LIMIT: '600' });
  });
  afterAll(async () => {
    await t.close();
  });

  const alertToken = async (extra: Record<string, unknown> = {}) => {
    const token = await t.createToken('alerts', extra);
    await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'alert-webhook' } });
    return token;
  };
  const alert = (secret: string, key: string | null, title = 'Alert for "Disk" - 1 lines found') =>
    t.call('POST', '/v1/alert', {
      auth: secret,
      headers: { 'content-type': 'application/json', ...(key === null ? {} : { 'idempotency-key': key }) },
      rawBody: JSON.stringify({ title, body: 'disk full', link: 'l' }),
    });
  const incidentsOf = async (tokenId: string) => (await t.db.query('select count(*)::int as n from incidents where token_id = $1', [tokenId])).rows[0].n as number;

  describe('Idempotency-Key', () => {
    it('applies a retried webhook once and answers the first response again', async () => {
      const token = await alertToken();
      const first = await alert(token.secret, 'delivery-1');
      const again = await alert(token.secret, 'delivery-1');
      expect(first.status).toBe(202);
      expect(again.status).toBe(202);
      expect(again.body).toEqual(first.body);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      expect(await incidentsOf(token.id)).toBe(1);
      expect((await alert(token.secret, 'delivery-2')).body.payloads[0].filters[0].action).toBe('created');
      expect(await incidentsOf(token.id)).toBe(2);
    });

    it('applies simultaneous repeats once', async () => {
      const token = await alertToken();
      const answers = await Promise.all(Array.from({ length: 20 }, () => alert(token.secret, 'same-moment')));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(202));
      const ids = new Set(answers.map((a) => a.body.payloads[0].filters[0].incidentId));
      expect(ids.size).toBe(1);
      expect(await incidentsOf(token.id)).toBe(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    });

    it('keeps keys per token', async () => {
      const a = await alertToken();
      const b = await alertToken();
      await alert(a.secret, 'shared-key');
      const other = await alert(b.secret, 'shared-key');
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      expect(await incidentsOf(b.id)).toBe(1);
    });

    it('refuses a key reused for a different request, changing nothing', async () => {
      const token = await alertToken();
      await alert(token.secret, 'reused');
      const different = await alert(token.secret, 'reused', 'Alert for "Other" - 2 lines found');
      expect(different.status).toBe(422);
      expect(different.body).toMatchObject({ statusCode: 422, code: 'IDEMPOTENCY_KEY_REUSED' });
      expect(await incidentsOf(token.id)).toBe(1);
    });

    it('does not remember a rejected call', async () => {
      const token = await alertToken();
      const bad = await t.call('POST', '/v1/alert', { auth: token.secret, headers: { 'content-type': 'application/json', 'idempotency-key': 'after-fix' }, rawBody: '{oops' });
      expect(bad.status).toBe(400);
      expect((await alert(token.secret, 'after-fix')).body.payloads[0].filters[0].action).toBe('created');
    });

    it.each(['', 'x'.repeat(256), 'has space', 'tab\tkey', 'ümlaut'])('rejects the key %j with a 400', async (key) => {
      const token = await alertToken();
      const response = await alert(token.secret, key);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('IDEMPOTENCY_KEY_INVALID');
      expect(await incidentsOf(token.id)).toBe(0);
    });

    it('forgets keys after 24 hours', async () => {
      const token = await alertToken();
      await alert(token.secret, 'old-key');
      await t.db.query(`update idempotency_keys set created_at = now() - interval '25 hours' where token_id = $1`, [token.id]);
      const later = await alert(token.secret, 'old-key');
      expect(later.headers.get('idempotent-replayed')).toBeNull();
      expect(await incidentsOf(token.id)).toBe(2);
      await t.db.query(`update idempotency_keys set created_at = now() - interval '25 hours' where token_id = $1`, [token.id]);
      expect(await t.app.get(IdempotencyCleanupJob).run()).toBeGreaterThanOrEqual(1);
      const { rows } = await t.db.query('select count(*)::int as n from idempotency_keys where token_id = $1', [token.id]);
      expect(rows[0].n).toBe(0);
    });
  });

  describe('rate limits', () => {
    it('answers 429 with Retry-After over a token\'s own limit, changing nothing, and logs it', async () => {
      const token = await alertToken({ rateLimitPerMinute: 3, debug: true });
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await alert(token.secret, null));
      expect(answers.map((a) => a.status)).toEqual([202, 202, 202, 429, 429]);
      expect(Number(answers[3].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(answers[3].headers.get('retry-after'))).toBeLessThanOrEqual(20);
      expect(answers[3].body).toMatchObject({ statusCode: 429, error: 'Too Many Requests', code: 'RATE_LIMITED' });
      expect(await incidentsOf(token.id)).toBe(3);
      const log = await t.call('GET', `/api/api-log?tokenId=${token.id}&statusCode=429`);
      expect(log.body.items).toHaveLength(2);
    });

    it('applies INTAKE_RATE_LIMIT to tokens without their own limit', async () => {
      const token = await alertToken();
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const batch = await Promise.all(Array.from({ length: 80 }, () => t.call('POST', '/v1/alert', { auth: token.secret, headers: { 'content-type': 'application/json' }, rawBody: '[]' })));
        statuses.push(...batch.map((b) => b.status));
      }
      expect(statuses.filter((s) => s === 202).length).toBeGreaterThanOrEqual(600);
      expect(statuses.filter((s) => s === 202).length).toBeLessThan(640);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    });

    it('lifts the limit when the token\'s own limit is raised', async () => {
      const token = await alertToken({ rateLimitPerMinute: 1 });
      await alert(token.secret, null);
      expect((await alert(token.secret, null)).status).toBe(429);
      await t.call('PATCH', `/api/tokens/${token.id}`, { body: { rateLimitPerMinute: 100 } });
      expect((await alert(token.secret, null)).status).toBe(202);
    });
  });
});
