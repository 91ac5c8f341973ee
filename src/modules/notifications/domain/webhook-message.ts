import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** The incident events a subscription can ask for. */
export const WEBHOOK_EVENTS = ['IncidentCreated', 'IncidentResolved'] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

/** Generated secrets start with this, so a leaked one is recognisable (e.g. by secret scanners). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export const SIGNATURE_HEADER = 'X-Intake-Signature';
export const TIMESTAMP_HEADER = 'X-Intake-Timestamp';
export const EVENT_HEADER = 'X-Intake-Event';
export const DELIVERY_HEADER = 'X-Intake-Delivery';
export const USER_AGENT = 'incident-intake-webhooks/1';

/** A new secret: the prefix and 32 random bytes in base64url (49 characters). */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

export interface DeliveryBody<T = unknown> {
  /** The delivery's id, the same on every retry: receivers dedupe by it. */
  id: string;
  event: WebhookEventName;
  /** ISO time of the event (the incident's creation or resolution). */
  occurredAt: string;
  /** The event's payload, as published inside the service. */
  data: T;
}

/** The exact text POSTed (and signed); stored in the outbox so every retry sends the same bytes. */
export function deliveryBody(body: DeliveryBody): string {
  return JSON.stringify({ id: body.id, event: body.event, occurredAt: body.occurredAt, data: body.data });
}

/** `sha256=<hex>`: HMAC-SHA256 with the secret (its UTF-8 bytes) over `<timestamp>.<raw body>`. */
export function signDelivery(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

/** The headers of one attempt; the timestamp is the attempt's, in unix seconds. */
export function deliveryHeaders(input: { deliveryId: string; event: string; secret: string; body: string; timestamp: number }): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': USER_AGENT,
    [EVENT_HEADER]: input.event,
    [DELIVERY_HEADER]: input.deliveryId,
    [TIMESTAMP_HEADER]: String(input.timestamp),
    [SIGNATURE_HEADER]: signDelivery(input.secret, input.timestamp, input.body),
  };
}

/**
 * What a receiver does (the README shows the same in a few lines): recompute the signature over
 * the raw body, compare in constant time, and refuse a timestamp older (or newer) than the tolerance.
 */
export function verifyDelivery(input: { secret: string; signature: string | undefined; timestamp: string | undefined; body: string; nowSeconds: number; toleranceSeconds?: number }): boolean {
  const tolerance = input.toleranceSeconds ?? 300;
  if (!input.signature || !input.timestamp || !/^\d{1,12}$/.test(input.timestamp)) return false;
  const timestamp = Number(input.timestamp);
  if (Math.abs(input.nowSeconds - timestamp) > tolerance) return false;
  const expected = Buffer.from(signDelivery(input.secret, timestamp, input.body));
  const given = Buffer.from(input.signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
