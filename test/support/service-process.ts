import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

/** The build `npm test` makes first; run `npm run build` before running a child-process suite alone. */
export const MAIN = join(process.cwd(), 'dist', 'src', 'main.js');

export interface ServiceProcess {
  child: ChildProcess;
  baseUrl: string;
  /** Everything written to stdout and stderr so far, interleaved as received. */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has exited. */
  exited: Promise<number | null>;
  /** Sends the signal and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

const running = new Set<ChildProcess>();

/**
 * Runs the built service (`node dist/src/main.js`) with only PATH and `env` in its environment, and
 * waits until it prints its address and database line.
 */
export function startService(env: Record<string, string>, timeoutMs = 30_000): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      running.delete(child);
      resolve(code);
    }),
  );
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the service did not start in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (https?:\/\/\S+)/.exec(output);
      if (match && /Database: /.test(output)) {
        clearTimeout(timer);
        resolve({ child, baseUrl: match[1], output: () => output, exited, stop });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} during start-up:\n${output}`));
    });
  });
}

/** Stops every service this file started that is still running (SIGTERM, then SIGKILL after `graceMs`). */
export async function stopAllServices(graceMs = 10_000): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) return done();
          const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
          child.once('exit', () => {
            clearTimeout(force);
            done();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
}

/** Calls an admin endpoint of a running service with the given key. */
export async function adminCall<T = any>(baseUrl: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
}
