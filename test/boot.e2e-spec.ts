import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_KEY } from './support/test-app.js';
import { createTestDatabase, dropTestDatabase } from './support/database-url.js';

const MAIN = join(process.cwd(), 'dist', 'src', 'main.js');

interface Started {
  child: ChildProcess;
  output: () => string;
  baseUrl: string;
}

const children = new Set<ChildProcess>();

/** Runs the built service as `npm start` would and waits for its start-up lines. */
function startService(env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start in time:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match && output.includes('Database:')) {
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

function stop(started: Started, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.once('exit', (code) => resolve(code));
    started.child.kill(signal);
  });
}

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
  afterEach(async () => {
    // A failed test must not leave a service (and its PostgreSQL) running.
    const running = [...children].filter((child) => child.exitCode === null && child.signalCode === null);
    await Promise.all(running.map((child) => new Promise((done) => (child.once('exit', done), child.kill('SIGTERM')))));
  });
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
