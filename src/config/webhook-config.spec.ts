import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from './config.js';

describe('loadConfig: outbound webhooks', () => {
  it('defaults to a 1 s first retry, a 24 h window and a 5 s attempt timeout', () => {
    expect(loadConfig({})).toMatchObject({ webhookRetryBaseMs: 1000, webhookMaxAgeMs: 86_400_000, webhookTimeoutMs: 5000 });
  });

  it.each([
    [{ WEBHOOK_RETRY_BASE_MS: '100' }, { webhookRetryBaseMs: 100 }],
    [{ WEBHOOK_RETRY_BASE_MS: ' 2500 ' }, { webhookRetryBaseMs: 2500 }],
    [{ WEBHOOK_MAX_AGE: '1s' }, { webhookMaxAgeMs: 1000 }],
    [{ WEBHOOK_MAX_AGE: '3d' }, { webhookMaxAgeMs: 3 * 86_400_000 }],
    [{ WEBHOOK_MAX_AGE: '90' }, { webhookMaxAgeMs: 90_000 }],
    [{ WEBHOOK_TIMEOUT_MS: '300' }, { webhookTimeoutMs: 300 }],
    [{ WEBHOOK_TIMEOUT_MS: '' }, { webhookTimeoutMs: 5000 }],
  ])('reads %j', (env, expected) => {
    expect(loadConfig(env)).toMatchObject(expected);
  });

  it.each([
    ['WEBHOOK_RETRY_BASE_MS', '0'],
    ['WEBHOOK_RETRY_BASE_MS', '1.5'],
    ['WEBHOOK_RETRY_BASE_MS', '1s'],
    ['WEBHOOK_RETRY_BASE_MS', '3600001'],
    ['WEBHOOK_MAX_AGE', '0'],
    ['WEBHOOK_MAX_AGE', '1w'],
    ['WEBHOOK_MAX_AGE', '-1h'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_TIMEOUT_MS', 'five'],
    ['WEBHOOK_TIMEOUT_MS', '120001'],
  ])('refuses %s=%j with one line naming it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(`Invalid configuration: ${variable}`);
  });
});
