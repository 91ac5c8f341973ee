import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { ALERT_BODY_TEMPLATE, buildEndpointSettings, SECRET_PLACEHOLDER, shellQuote } from './endpoint-settings.js';

const tokenId = '0b6f7c2e-4f1a-4c59-9d2b-3a8e5f6d7c10';
const secret = `iit_${'A'.repeat(43)}`;

/** The arguments a POSIX shell makes of a line, printed by the shell itself (no curl run). */
function shellWords(line: string): string[] {
  const out = execFileSync('sh', ['-c', `set -- ${line.replace(/^curl /, '')}; for a in "$@"; do printf '%s\\0' "$a"; done`]);
  return out.toString().split('\0').slice(0, -1);
}

describe(buildEndpointSettings.name, () => {
  it.each([
    ['a plain origin', 'https://intake.example.com', 'https://intake.example.com'],
    ['a trailing slash', 'https://intake.example.com/', 'https://intake.example.com'],
    ['several trailing slashes', 'https://intake.example.com///', 'https://intake.example.com'],
    ['a path prefix', 'https://proxy.example.com/intake/', 'https://proxy.example.com/intake'],
    ['a port and plain HTTP', 'http://127.0.0.1:3000', 'http://127.0.0.1:3000'],
    ['an IPv6 address', 'http://[::1]:8080', 'http://[::1]:8080'],
  ])('builds the URLs from %s', (_, baseUrl, expected) => {
    const settings = buildEndpointSettings({ tokenId, baseUrl });
    expect(settings.baseUrl).toBe(expected);
    expect(settings.traceUrl).toBe(`${expected}/v1/trace`);
    expect(settings.alertUrl).toBe(`${expected}/v1/alert`);
    expect(settings.alertWebhook.url).toBe(`${expected}/v1/alert`);
    expect(settings.zipkin.json['zipkin.reporter.http.endpoint']).toBe(`${expected}/v1/trace`);
    expect(settings.zipkin.properties).toContain(`zipkin.reporter.http.endpoint=${expected}/v1/trace\n`);
  });

  it.each([
    ['without a secret', undefined, SECRET_PLACEHOLDER, SECRET_PLACEHOLDER],
    ['with null', null, SECRET_PLACEHOLDER, SECRET_PLACEHOLDER],
    ['with the secret', secret, secret, null],
  ])('fills the Authorization header %s', (_, given, shown, placeholder) => {
    const settings = buildEndpointSettings({ tokenId, baseUrl: 'https://intake.example.com', secret: given });
    const header = `Bearer ${shown}`;
    expect(settings.secretPlaceholder).toBe(placeholder);
    expect(settings.headers).toEqual({ Authorization: header, 'Content-Type': 'application/json' });
    expect(settings.zipkin.headers).toEqual({ Authorization: header });
    expect(settings.alertWebhook.headers.Authorization).toBe(header);
    expect(settings.zipkin.properties).toContain(`# Authorization: ${header}\n`);
    for (const line of [settings.curl.trace, settings.curl.alert]) {
      expect(shellWords(line)).toContain(`Authorization: ${header}`);
    }
    if (placeholder) expect(JSON.stringify(settings)).not.toContain('iit_');
  });

  it('gives the Zipkin reporter keys as properties and as JSON', () => {
    const settings = buildEndpointSettings({ tokenId, baseUrl: 'https://intake.example.com' });
    expect(settings.zipkin.json).toEqual({
      'zipkin.reporter.http.endpoint': 'https://intake.example.com/v1/trace',
      'zipkin.reporter.http.json': true,
      'zipkin.reporter.http.messageMaxBytes': 5242880,
    });
    const keys = settings.zipkin.properties
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => line.split('=', 2));
    expect(Object.fromEntries(keys)).toEqual({
      'zipkin.reporter.http.endpoint': 'https://intake.example.com/v1/trace',
      'zipkin.reporter.http.json': 'true',
      'zipkin.reporter.http.messageMaxBytes': '5242880',
    });
  });

  it('gives the alert webhook body template with placeholders and says what goes there', () => {
    const { alertWebhook } = buildEndpointSettings({ tokenId, baseUrl: 'https://intake.example.com' });
    expect(alertWebhook.method).toBe('POST');
    expect(alertWebhook.bodyTemplate).toBe(ALERT_BODY_TEMPLATE);
    expect(JSON.parse(alertWebhook.bodyTemplate)).toEqual({ body: '{{body}}', title: '{{title}}', link: '{{link}}' });
    expect(alertWebhook.description).toMatch(/template variables/);
  });

  it.each([
    ['trace', 'https://intake.example.com/v1/trace'],
    ['alert', 'https://intake.example.com/v1/alert'],
  ] as const)('makes a %s curl line a shell splits into URL, headers and a valid JSON body', (which, url) => {
    const line = buildEndpointSettings({ tokenId, baseUrl: 'https://intake.example.com' }).curl[which];
    const words = shellWords(line);
    expect(line.startsWith('curl ')).toBe(true);
    expect(words.slice(0, 3)).toEqual(['-sS', '-X', 'POST']);
    expect(words).toContain(url);
    expect(words).toContain('Content-Type: application/json');
    const body = JSON.parse(words[words.indexOf('--data-raw') + 1]);
    if (which === 'trace') expect(body).toEqual([expect.objectContaining({ status: 'running', traceId: expect.any(String), name: expect.any(String) })]);
    else expect(body).toEqual({ title: expect.stringContaining('Alert'), body: expect.stringContaining("'"), link: 'https://intake.example.com/docs' });
  });
});

describe(shellQuote.name, () => {
  it.each([['plain'], ["it's"], ['$HOME `id` "q" \\n'], ["''"], ['']])('quotes %j so that a shell gives it back unchanged', (text) => {
    const out = execFileSync('sh', ['-c', `printf '%s' ${shellQuote(text)}`]).toString();
    expect(out).toBe(text);
  });
});
