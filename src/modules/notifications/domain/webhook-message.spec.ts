import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { deliveryBody, deliveryHeaders, generateWebhookSecret, signDelivery, verifyDelivery, WEBHOOK_SECRET_PREFIX } from './webhook-message.js';

const secret = 'whsec_test-secret-0123456789';
const body = deliveryBody({ id: 'd-1', event: 'IncidentCreated', occurredAt: '2026-11-22T10:00:00.000Z', data: { incidentId: 'i-1', title: 'ünïcode "quoted"' } });

describe(signDelivery.name, () => {
  it('is HMAC-SHA256 of the secret over "<timestamp>.<raw body>", hex, with the sha256= prefix', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signDelivery(secret, 1700000000, body)).toBe(`sha256=${expected}`);
  });

  it.each([
    ['another secret', () => signDelivery(`${secret}x`, 1700000000, body)],
    ['another timestamp', () => signDelivery(secret, 1700000001, body)],
    ['another body', () => signDelivery(secret, 1700000000, body.replace('i-1', 'i-2'))],
  ])('changes with %s', (_, other) => {
    expect(other()).not.toBe(signDelivery(secret, 1700000000, body));
  });

  it('matches a known vector', () => {
    expect(signDelivery('key', 1, '{}')).toBe(`sha256=${createHmac('sha256', 'key').update('1.{}').digest('hex')}`);
    expect(signDelivery('key', 1, '{}')).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});

describe(deliveryBody.name, () => {
  it('has exactly id, event, occurredAt and data, in that order', () => {
    expect(Object.keys(JSON.parse(body))).toEqual(['id', 'event', 'occurredAt', 'data']);
    expect(JSON.parse(body)).toEqual({ id: 'd-1', event: 'IncidentCreated', occurredAt: '2026-11-22T10:00:00.000Z', data: { incidentId: 'i-1', title: 'ünïcode "quoted"' } });
  });
});

describe(deliveryHeaders.name, () => {
  it('carries the content type, event, delivery id, timestamp and signature', () => {
    const headers = deliveryHeaders({ deliveryId: 'd-1', event: 'IncidentCreated', secret, body, timestamp: 1700000000 });
    expect(headers).toMatchObject({
      'Content-Type': 'application/json',
      'X-Intake-Event': 'IncidentCreated',
      'X-Intake-Delivery': 'd-1',
      'X-Intake-Timestamp': '1700000000',
      'X-Intake-Signature': signDelivery(secret, 1700000000, body),
    });
  });
});

describe(verifyDelivery.name, () => {
  const signature = signDelivery(secret, 1700000000, body);
  it.each([
    ['a fresh, correct signature', { signature, timestamp: '1700000000', nowSeconds: 1700000010 }, true],
    ['a timestamp at the edge of the tolerance', { signature, timestamp: '1700000000', nowSeconds: 1700000300 }, true],
    ['an old timestamp', { signature, timestamp: '1700000000', nowSeconds: 1700000301 }, false],
    ['a timestamp from the future', { signature, timestamp: '1700000000', nowSeconds: 1699999000 }, false],
    ['a replayed signature with a new timestamp', { signature, timestamp: '1700000100', nowSeconds: 1700000100 }, false],
    ['no signature', { signature: undefined, timestamp: '1700000000', nowSeconds: 1700000000 }, false],
    ['a truncated signature', { signature: signature.slice(0, -1), timestamp: '1700000000', nowSeconds: 1700000000 }, false],
    ['a timestamp that is not a number', { signature, timestamp: '17e8', nowSeconds: 1700000000 }, false],
  ])('%s → %s', (_, input, expected) => {
    expect(verifyDelivery({ secret, body, ...input })).toBe(expected);
  });
});

describe(generateWebhookSecret.name, () => {
  it('is the prefix and 32 random bytes in base64url', () => {
    const a = generateWebhookSecret();
    expect(a.startsWith(WEBHOOK_SECRET_PREFIX)).toBe(true);
    expect(Buffer.from(a.slice(WEBHOOK_SECRET_PREFIX.length), 'base64url')).toHaveLength(32);
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });
});
