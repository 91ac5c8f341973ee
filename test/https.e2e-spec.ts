import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Controller, Get, Module, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ADMIN_KEY, TestApp } from './support/test-app.js';
import { createTestDatabase, dropTestDatabase } from './support/database-url.js';

const MAIN = join(process.cwd(), 'dist', 'src', 'main.js');
const HSTS = 'max-age=31536000; includeSubDomains';

interface Started {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
}

const children = new Set<ChildProcess>();

/** Runs the built service and waits for its start-up lines. */
function startService(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', ADMIN_API_KEY: ADMIN_KEY, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start in time:\n${output}`)), 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (https?:\/\/\S+)/.exec(output);
      if (match && output.includes('Alert intake:')) {
        clearTimeout(timer);
        resolve({ child, output: () => output, baseUrl: match[1] });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${output}`));
    });
  });
}

function stop(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.removeAllListeners('exit');
    started.child.once('exit', (code) => resolve(code));
    started.child.kill('SIGTERM');
  });
}

function runToExit(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', PORT: '0', ADMIN_API_KEY: ADMIN_KEY, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}

interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/** One HTTPS call that trusts only `ca` (the test's self-signed certificate). */
function httpsCall(ca: Buffer, url: string, options: { method?: string; auth?: string; body?: unknown } = {}): Promise<HttpsAnswer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = request(
      url,
      {
        ca,
        method: options.method ?? 'GET',
        headers: {
          ...(options.auth ? { authorization: `Bearer ${options.auth}` } : {}),
          ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTPS (e2e, child process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'intake-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  const otherKeyFile = join(dir, 'other-key.pem');
  let ca: Buffer;
  let databaseUrl: string;

  beforeAll(async () => {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'],
      { stdio: 'ignore' },
    );
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', otherKeyFile], { stdio: 'ignore' });
    ca = readFileSync(certFile);
    databaseUrl = await createTestDatabase();
  });
  afterEach(() => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    children.clear();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await dropTestDatabase(databaseUrl);
  });

  it('serves admin and intake over HTTPS with HSTS on every answer, refuses plain HTTP, and hands out https:// settings', async () => {
    const started = await startService({ DATABASE_URL: databaseUrl, TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile });
    const base = started.baseUrl;
    expect(base).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(started.output()).toContain('TLS:');
    expect(started.output()).not.toContain('TLS-terminating proxy');

    const created = await httpsCall(ca, `${base}/api/tokens`, { method: 'POST', auth: ADMIN_KEY, body: { name: 'over-tls' } });
    expect(created.status).toBe(201);
    expect(created.headers['strict-transport-security']).toBe(HSTS);
    const settings = created.body.endpointSettings;
    expect(settings.traceUrl).toBe(`${base}/v1/trace`);
    expect(settings.alertUrl).toBe(`${base}/v1/alert`);

    const filter = await httpsCall(ca, `${base}/api/filters`, { method: 'POST', auth: ADMIN_KEY, body: { tokenId: created.body.id, template: 'alert-webhook' } });
    expect(filter.status).toBe(201);
    const alert = await httpsCall(ca, settings.alertUrl, { method: 'POST', auth: created.body.token, body: { title: 'Alert: disk full', body: 'sda1 at 99%', link: 'https://x' } });
    expect(alert.status).toBe(202);
    expect(alert.headers['strict-transport-security']).toBe(HSTS);
    expect(alert.body.payloads[0].filters[0].action).toBe('created');

    // The settings' own curl line, trusting the test certificate.
    const curl = `${settings.curl.alert.replace(/^curl /, `curl --cacert '${certFile}' `)}`;
    const { stdout } = await promisify(execFile)('sh', ['-c', curl]);
    expect(JSON.parse(stdout).payloads[0].filters[0].action).toBe('created');

    const incidents = await httpsCall(ca, `${base}/api/incidents?tokenId=${created.body.id}`, { auth: ADMIN_KEY });
    expect(incidents.body.items).toHaveLength(2);
    for (const path of ['/health', '/no-such-route', '/v1/trace']) {
      expect((await httpsCall(ca, base + path, { method: path === '/v1/trace' ? 'POST' : 'GET' })).headers['strict-transport-security']).toBe(HSTS);
    }

    await expect(fetch(`${base.replace('https:', 'http:')}/health`)).rejects.toThrow();
    expect(await stop(started)).toBe(0);
  }, 30_000);

  it.each([
    ['a key that does not match the certificate', () => ({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: otherKeyFile }), 'Invalid configuration: TLS_KEY_FILE does not match the certificate in TLS_CERT_FILE'],
    ['a missing certificate file', () => ({ TLS_CERT_FILE: join(dir, 'missing.pem'), TLS_KEY_FILE: keyFile }), 'Invalid configuration: TLS_CERT_FILE cannot be read (ENOENT'],
    ['a missing key file', () => ({ TLS_CERT_FILE: certFile, TLS_KEY_FILE: join(dir, 'missing.pem') }), 'Invalid configuration: TLS_KEY_FILE cannot be read (ENOENT'],
    ['a certificate without its key', () => ({ TLS_CERT_FILE: certFile }), 'Invalid configuration: TLS_KEY_FILE must be set together with TLS_CERT_FILE'],
  ])('refuses to start with %s: exit 1 and one clear line', async (_, env, message) => {
    const { code, stdout, stderr } = await runToExit({ DATABASE_URL: databaseUrl, ...env() });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining(message)]);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(stdout).not.toContain('listening');
  }, 20_000);

  it('serves plain HTTP beyond loopback only with a line saying a TLS-terminating proxy must be in front', async () => {
    const started = await startService({ DATABASE_URL: databaseUrl, HOST: '0.0.0.0' });
    expect(started.baseUrl).toMatch(/^http:\/\//);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const warnings = started.output().split('\n').filter((line) => line.includes('TLS-terminating proxy'));
    expect(warnings).toEqual([expect.stringMatching(/^Warning: plain HTTP on 0\.0\.0\.0: a TLS-terminating proxy must be in front/)]);
    const health = await fetch(`${started.baseUrl}/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get('strict-transport-security')).toBeNull();
    expect(await stop(started)).toBe(0);
  }, 30_000);
});

/** Echoes what Fastify believes about the client, as any log line would record it. */
@Controller('test-client-address')
class ClientAddressController {
  @Get()
  address(@Req() request: FastifyRequest) {
    return { ip: request.ip, protocol: request.protocol };
  }
}

@Module({ controllers: [ClientAddressController] })
class ClientAddressModule {}

describe('Behind a proxy: TRUST_PROXY (e2e)', () => {
  it.each([
    // The proxy (127.0.0.1, the test's own connection) forwards for 203.0.113.7, which claims 198.51.100.1.
    ['unset', '127.0.0.1', 'http', {}],
    ['the proxy address', '203.0.113.7', 'https', { TRUST_PROXY: '127.0.0.1' }],
    ['a CIDR that does not hold the proxy', '127.0.0.1', 'http', { TRUST_PROXY: '10.0.0.0/8' }],
    ['a hop count of 1', '203.0.113.7', 'https', { TRUST_PROXY: '1' }],
    ['true (every hop)', '198.51.100.1', 'https', { TRUST_PROXY: 'true' }],
  ])('with TRUST_PROXY %s the client address is %s and the protocol %s', async (_, ip, protocol, env) => {
    const t = await TestApp.start(env, [ClientAddressModule]);
    try {
      const answer = await t.call('GET', '/test-client-address', { headers: { 'x-forwarded-for': '198.51.100.1, 203.0.113.7', 'x-forwarded-proto': 'https' } });
      expect(answer.body).toEqual({ ip, protocol });
    } finally {
      await t.close();
    }
  });
});
