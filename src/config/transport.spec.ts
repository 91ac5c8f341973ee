import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config.js';
import { fastifyTrustProxy, isLoopbackHost, listeningBaseUrl, loadTlsCredentials } from './transport.js';

describe(isLoopbackHost.name, () => {
  it.each([
    ['127.0.0.1', true],
    ['127.8.9.10', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['128.0.0.1', false],
    ['intake.internal', false],
    ['localhost.example.com', false],
  ])('%s: %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe(listeningBaseUrl.name, () => {
  it.each([
    ['127.0.0.1', 3000, false, 'http://127.0.0.1:3000'],
    ['127.0.0.1', 8443, true, 'https://127.0.0.1:8443'],
    ['0.0.0.0', 3000, false, 'http://localhost:3000'],
    ['::', 3000, true, 'https://localhost:3000'],
    ['::1', 3000, false, 'http://[::1]:3000'],
    ['intake.internal', 443, true, 'https://intake.internal'],
    ['intake.internal', 80, false, 'http://intake.internal'],
  ])('%s port %d (TLS %s): %s', (host, port, tls, expected) => {
    expect(listeningBaseUrl(host, port, tls)).toBe(expected);
  });
});

describe(fastifyTrustProxy.name, () => {
  it('passes booleans and lists through', () => {
    expect(fastifyTrustProxy(false)).toBe(false);
    expect(fastifyTrustProxy(true)).toBe(true);
    expect(fastifyTrustProxy(['10.0.0.0/8'])).toEqual(['10.0.0.0/8']);
  });

  it('turns a hop count into "the nearest n addresses are proxies"', () => {
    const trust = fastifyTrustProxy(2) as (address: string, hop: number) => boolean;
    expect([0, 1, 2, 3].map((hop) => trust('10.0.0.1', hop))).toEqual([true, true, false, false]);
  });
});

describe(loadTlsCredentials.name, () => {
  let dir: string;
  const file = (name: string) => join(dir, name);
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'intake-tls-unit-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('key.pem'), '-out', file('cert.pem'), '-days', '1', '-subj', '/CN=localhost'], { stdio: 'ignore' });
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', file('other-key.pem')], { stdio: 'ignore' });
    writeFileSync(file('garbage.pem'), 'not a PEM file\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads a matching pair', () => {
    const credentials = loadTlsCredentials({ certFile: file('cert.pem'), keyFile: file('key.pem') });
    expect(credentials.cert.toString()).toContain('BEGIN CERTIFICATE');
    expect(credentials.key.toString()).toContain('PRIVATE KEY');
    expect(credentials.subject).toBe('CN=localhost');
    expect(credentials.validTo.getTime()).toBeGreaterThan(Date.now());
  });

  it.each([
    ['a missing certificate', 'missing.pem', 'key.pem', 'TLS_CERT_FILE', /cannot be read \(ENOENT/],
    ['a missing key', 'cert.pem', 'missing.pem', 'TLS_KEY_FILE', /cannot be read \(ENOENT/],
    ['a directory as the certificate', '.', 'key.pem', 'TLS_CERT_FILE', /cannot be read/],
    ['a certificate that is not PEM', 'garbage.pem', 'key.pem', 'TLS_CERT_FILE', /is not a PEM certificate/],
    ['a key that is not PEM', 'cert.pem', 'garbage.pem', 'TLS_KEY_FILE', /is not an unencrypted PEM private key/],
    ['the certificate given as the key', 'cert.pem', 'cert.pem', 'TLS_KEY_FILE', /is not an unencrypted PEM private key/],
    ['a key of another certificate', 'cert.pem', 'other-key.pem', 'TLS_KEY_FILE', /does not match the certificate in TLS_CERT_FILE/],
  ])('stops on %s with one line naming the variable', (_, cert, key, variable, message) => {
    let error: unknown;
    try {
      loadTlsCredentials({ certFile: file(cert), keyFile: file(key) });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).toMatch(message);
    expect((error as ConfigError).message).not.toContain('\n');
  });
});
