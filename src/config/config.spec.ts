import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig, parseDuration } from './config.js';

const key = 'k'.repeat(40);

describe(loadConfig.name, () => {
  it('has defaults that start a development server', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({ port: 3000, host: '127.0.0.1', databaseUrl: null, logLevel: 'info', debugTtlMs: 48 * 3600_000, adminApiKeyGenerated: true });
    expect(config.dataDir).toMatch(/\.data$/);
    expect(config.adminApiKey).toMatch(/^adm_[A-Za-z0-9_-]{43}$/);
    expect(config).toMatchObject({ publicBaseUrl: null, tls: null, trustProxy: false });
  });

  it.each([
    ['https://intake.example.com', 'https://intake.example.com'],
    ['https://intake.example.com/', 'https://intake.example.com'],
    [' https://Intake.Example.com:443// ', 'https://intake.example.com'],
    ['http://10.0.0.5:8080', 'http://10.0.0.5:8080'],
    ['https://proxy.example.com/intake/', 'https://proxy.example.com/intake'],
    ['http://[::1]:3000/', 'http://[::1]:3000'],
    ['', null],
  ])('reads PUBLIC_BASE_URL %j as %j', (value, expected) => {
    expect(loadConfig({ PUBLIC_BASE_URL: value }).publicBaseUrl).toBe(expected);
  });

  it.each([
    [{}, null],
    [{ TLS_CERT_FILE: ' ', TLS_KEY_FILE: '' }, null],
    [{ TLS_CERT_FILE: '/etc/intake/cert.pem', TLS_KEY_FILE: '/etc/intake/key.pem' }, { certFile: '/etc/intake/cert.pem', keyFile: '/etc/intake/key.pem' }],
  ])('reads TLS_CERT_FILE and TLS_KEY_FILE %j', (env, expected) => {
    expect(loadConfig(env).tls).toEqual(expected);
  });

  it('resolves relative TLS file names against the working directory', () => {
    const { tls } = loadConfig({ TLS_CERT_FILE: 'certs/cert.pem', TLS_KEY_FILE: './certs/key.pem' });
    expect(tls).toEqual({ certFile: `${process.cwd()}/certs/cert.pem`, keyFile: `${process.cwd()}/certs/key.pem` });
  });

  it.each([
    ['', false],
    ['false', false],
    ['FALSE', false],
    ['true', true],
    [' True ', true],
    ['1', 1],
    ['2', 2],
    ['10.0.0.1', ['10.0.0.1']],
    ['10.0.0.0/8, 192.168.1.1 ,::1', ['10.0.0.0/8', '192.168.1.1', '::1']],
    ['fd00::/8,loopback,', ['fd00::/8', 'loopback']],
  ])('reads TRUST_PROXY %j', (value, expected) => {
    expect(loadConfig({ TRUST_PROXY: value }).trustProxy).toEqual(expected);
  });

  it('reads every variable', () => {
    const config = loadConfig({ PORT: '8080', HOST: '0.0.0.0', DATABASE_URL: 'postgres://u:p@db:5432/intake', DATA_DIR: '/var/lib/intake', ADMIN_API_KEY: key, LOG_LEVEL: 'debug', API_TOKEN_DEBUG_TTL: '90m' });
    expect(config).toMatchObject({ port: 8080, host: '0.0.0.0', databaseUrl: 'postgres://u:p@db:5432/intake', dataDir: '/var/lib/intake', adminApiKey: key, adminApiKeyGenerated: false, logLevel: 'debug', debugTtlMs: 90 * 60_000 });
  });

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['PORT', { PORT: '70000' }],
    ['PORT', { PORT: '-1' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://x@y/z' }],
    ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
    ['ADMIN_API_KEY', { ADMIN_API_KEY: 'short' }],
    ['ADMIN_API_KEY', { NODE_ENV: 'production' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
    ['API_TOKEN_DEBUG_TTL', { API_TOKEN_DEBUG_TTL: '2 weeks' }],
    ['API_TOKEN_DEBUG_TTL', { API_TOKEN_DEBUG_TTL: '0h' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'intake.example.com' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'ftp://intake.example.com' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'https://intake.example.com/?x=1' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'https://user:pw@intake.example.com' }],
    ['PUBLIC_BASE_URL', { PUBLIC_BASE_URL: 'https://intake.example.com/#top' }],
    ['TLS_KEY_FILE', { TLS_CERT_FILE: '/etc/intake/cert.pem' }],
    ['TLS_CERT_FILE', { TLS_KEY_FILE: '/etc/intake/key.pem' }],
    ['TRUST_PROXY', { TRUST_PROXY: 'yes' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.0/33' }],
    ['TRUST_PROXY', { TRUST_PROXY: '10.0.0.1,proxy.internal' }],
    ['TRUST_PROXY', { TRUST_PROXY: '-1' }],
    ['TRUST_PROXY', { TRUST_PROXY: ',' }],
  ])('stops on a bad %s with one line naming it', (variable, env) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variable).toBe(variable);
    expect((error as ConfigError).message).toContain(variable);
    expect((error as ConfigError).message).not.toContain('\n');
  });
});

describe(parseDuration.name, () => {
  it.each([
    ['48h', 172_800_000],
    ['90m', 5_400_000],
    ['30s', 30_000],
    ['2d', 172_800_000],
    ['45', 45_000],
    [' 5s ', 5_000],
  ])('reads %j as %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', 'h', '1.5h', '-1h', '1w', '1h30m', '0'])('rejects %j', (text) => {
    expect(parseDuration(text)).toBeNull();
  });
});
