import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_KEY } from './support/test-app.js';
import { createTestDatabase, dropTestDatabase } from './support/database-url.js';
import { MAIN, startService, stopAllServices, type ServiceProcess } from './support/service-process.js';

const stop = (started: ServiceProcess, signal: NodeJS.Signals = 'SIGTERM') => started.stop(signal);

function runToExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

const admin = (baseUrl: string, path: string, init: RequestInit = {}) =>
  fetch(baseUrl + path, { ...init, headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', ...(init.headers ?? {}) } });

describe('Starting the service (e2e, child process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'intake-boot-'));
  // A failed test must not leave a service (and its PostgreSQL) running.
  afterEach(() => stopAllServices());
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts on an embedded PostgreSQL, keeps data across a restart and stops cleanly on SIGTERM and SIGINT', async () => {
    const first = await startService({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY });
    expect(first.output()).toContain('/docs');
    expect(first.output()).toContain('POST');
    expect(first.output()).toContain('/v1/trace');
    expect(first.output()).toContain('/v1/alert');
    expect(first.output()).toContain('embedded PostgreSQL');
    const created = (await (await admin(first.baseUrl, '/api/tokens', { method: 'POST', body: JSON.stringify({ name: 'survivor' }) })).json()) as { id: string; name: string };
    expect(created.name).toBe('survivor');
    expect(await stop(first, 'SIGTERM')).toBe(0);
    expect(first.output()).toContain('stopped');
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);

    const second = await startService({ DATA_DIR: dataDir, ADMIN_API_KEY: ADMIN_KEY });
    const read = await admin(second.baseUrl, `/api/tokens/${created.id}`);
    expect(read.status).toBe(200);
    expect(await stop(second, 'SIGINT')).toBe(0);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, 90_000);

  it('prints a generated admin key once when ADMIN_API_KEY is unset', async () => {
    const started = await startService({ DATA_DIR: dataDir });
    const key = /Admin key[^:]*: (adm_\S+)/.exec(started.output())?.[1];
    expect(key).toBeDefined();
    expect((await fetch(`${started.baseUrl}/api/tokens`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect(await stop(started)).toBe(0);
  }, 60_000);

  it('uses DATABASE_URL and starts nothing embedded', async () => {
    const url = await createTestDatabase();
    const emptyDataDir = mkdtempSync(join(tmpdir(), 'intake-boot-ext-'));
    try {
      const started = await startService({ DATA_DIR: emptyDataDir, DATABASE_URL: url, ADMIN_API_KEY: ADMIN_KEY });
      expect(started.output()).toContain('Database:      DATABASE_URL');
      expect(existsSync(join(emptyDataDir, 'postgres'))).toBe(false);
      expect((await fetch(`${started.baseUrl}/health/ready`)).status).toBe(200);
      expect(await stop(started)).toBe(0);
    } finally {
      rmSync(emptyDataDir, { recursive: true, force: true });
      await dropTestDatabase(url);
    }
  }, 60_000);

  it.each([
    ['PORT', { PORT: 'eighty' }],
    ['ADMIN_API_KEY', { NODE_ENV: 'production' }],
    ['DATABASE_URL', { DATABASE_URL: 'mysql://nope' }],
    ['LOG_LEVEL', { LOG_LEVEL: 'shout' }],
  ])('refuses to start with a bad %s, saying so in one line', async (variable, env) => {
    const { code, stderr } = await runToExit({ DATA_DIR: dataDir, ...env });
    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(stderr).toContain(`Invalid configuration: ${variable}`);
  }, 30_000);
});
