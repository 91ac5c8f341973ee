import { describe, expect, it } from '@jest/globals';
import { isWebhookUrl, WebhookInvalidError, WebhookSubscription } from './webhook-subscription.entity.js';

const now = new Date('2026-11-22T10:00:00.000Z');
const valid = { url: 'https://hooks.example.com/incidents', events: ['IncidentCreated'], secret: 'a-secret-of-16-chars' };

describe(isWebhookUrl.name, () => {
  it.each([
    ['https://hooks.example.com/incidents', true],
    ['http://127.0.0.1:8080/hook?team=core', true],
    ['http://localhost:3000', true],
    ['http://[::1]:9000/x', true],
    ['HTTPS://Hooks.Example.com', true],
    ['ftp://hooks.example.com', false],
    ['file:///etc/passwd', false],
    ['javascript:alert(1)', false],
    ['/relative/path', false],
    ['hooks.example.com/incidents', false],
    ['https://user:pass@hooks.example.com', false],
    ['https://token@hooks.example.com', false],
    [`https://hooks.example.com/${'a'.repeat(2048)}`, false],
    ['', false],
  ])('%s → %p', (url, expected) => {
    expect(isWebhookUrl(url)).toBe(expected);
  });
});

describe(WebhookSubscription.name, () => {
  it('keeps the events once each, in a fixed order', () => {
    const subscription = new WebhookSubscription({ ...valid, events: ['IncidentResolved', 'IncidentCreated', 'IncidentResolved'] }, now);
    expect(subscription.events).toEqual(['IncidentCreated', 'IncidentResolved']);
    expect(subscription.wants('IncidentResolved')).toBe(true);
    expect(subscription.wants('IncidentDeduplicated')).toBe(false);
  });

  it.each([
    ['a URL that is not http(s)', { url: 'ftp://x.example.com' }, 'url'],
    ['no events', { events: [] }, 'events'],
    ['an unknown event', { events: ['IncidentCreated', 'TokenRevoked'] }, 'events'],
    ['a short secret', { secret: 'short' }, 'secret'],
    ['a secret with a space', { secret: 'a secret of 16 chars' }, 'secret'],
    ['an empty name', { name: '' }, 'name'],
  ])('refuses %s, naming the field', (_, change, field) => {
    const create = () => new WebhookSubscription({ ...valid, ...change }, now);
    expect(create).toThrow(WebhookInvalidError);
    try {
      create();
    } catch (error) {
      expect((error as WebhookInvalidError).details).toEqual([expect.objectContaining({ field })]);
    }
  });

  it('edits only the values given and leaves the rest', () => {
    const subscription = new WebhookSubscription({ ...valid, name: 'bot' }, now);
    const later = new Date(now.getTime() + 1000);
    subscription.edit({ events: ['IncidentResolved'] }, later);
    expect(subscription).toMatchObject({ url: valid.url, events: ['IncidentResolved'], secret: valid.secret, name: 'bot', updatedAt: later, createdAt: now });
    subscription.edit({ name: null }, later);
    expect(subscription.name).toBeNull();
    expect(() => subscription.edit({ url: 'nope' }, later)).toThrow(WebhookInvalidError);
    expect(subscription.url).toBe(valid.url);
  });
});
