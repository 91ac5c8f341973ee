import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestApp } from './support/test-app.js';

/** Debian's prometheus-alertmanager; `.ci/run` installs it. */
const ALERTMANAGER = '/usr/bin/prometheus-alertmanager';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });

async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Prometheus Alertmanager template (e2e, real Alertmanager)', () => {
  let t: TestApp;
  let alertmanager: ChildProcess;
  let amUrl: string;
  let output = '';
  let token: { id: string; secret: string };
  const dir = mkdtempSync(join(tmpdir(), 'alertmanager-'));

  beforeAll(async () => {
    const version = spawnSync(ALERTMANAGER, ['--version'], { encoding: 'utf8' });
    if (version.status !== 0) throw new Error(`${ALERTMANAGER} is missing: apt-get install prometheus-alertmanager (.ci/run does)`);
    t = await TestApp.start();
    token = await t.createToken('alertmanager');
    const filter = await t.call('POST', '/api/filters', { body: { tokenId: token.id, template: 'prometheus-alertmanager' } });
    expect(filter.status).toBe(201);

    const port = await freePort();
    amUrl = `http://127.0.0.1:${port}`;
    writeFileSync(
      join(dir, 'alertmanager.yml'),
      [
        'route:',
        '  receiver: intake',
        "  group_by: ['alertname']",
        '  group_wait: 1s',
        '  group_interval: 1s',
        '  repeat_interval: 1h',
        'receivers:',
        '  - name: intake',
        '    webhook_configs:',
        `      - url: ${t.baseUrl}/v1/alert`,
        '        send_resolved: true',
        '        http_config:',
        '          authorization:',
        '            type: Bearer',
        `            credentials: ${token.secret}`,
      ].join('\n'),
    );
    alertmanager = spawn(
      ALERTMANAGER,
      [`--config.file=${join(dir, 'alertmanager.yml')}`, `--storage.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--cluster.listen-address=', '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    alertmanager.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    alertmanager.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await eventually('Alertmanager to answer', async () => ((await fetch(`${amUrl}/-/ready`).catch(() => null))?.ok ? true : undefined));
  }, 60_000);

  afterAll(async () => {
    if (alertmanager && alertmanager.exitCode === null) {
      await new Promise((done) => (alertmanager.once('exit', done), alertmanager.kill('SIGTERM')));
    }
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const postAlert = async (endsAt?: string) => {
    const alert = {
      labels: { alertname: 'DiskAlmostFull', instance: 'db-1', severity: 'page' },
      annotations: { summary: 'Disk on db-1 is 95% full' },
      startsAt: new Date(Date.now() - 60_000).toISOString(),
      ...(endsAt ? { endsAt } : {}),
    };
    const response = await fetch(`${amUrl}/api/v2/alerts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify([alert]) });
    expect(response.status).toBe(200);
  };

  it('opens one incident for a firing group and resolves it with the resolved notification', async () => {
    await postAlert();
    const opened = await eventually('the firing group to open an incident', async () => {
      const list = await t.call('GET', `/api/incidents?tokenId=${token.id}`);
      return list.body.items.length > 0 ? list.body.items : undefined;
    });
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ title: 'DiskAlmostFull', description: 'Disk on db-1 is 95% full', status: 'open' });
    expect(opened[0].mappedValue).toContain('alertname="DiskAlmostFull"');

    await postAlert(new Date(Date.now() - 1000).toISOString());
    const resolved = await eventually('the resolved notification', async () => {
      const incident = (await t.call('GET', `/api/incidents/${opened[0].id}`)).body;
      return incident.status === 'resolved' ? incident : undefined;
    });
    expect(resolved).toMatchObject({ resolvedBy: 'filter' });
    const all = await t.call('GET', `/api/incidents?tokenId=${token.id}`);
    expect(all.body.items).toHaveLength(1);
    expect(output).not.toContain(token.secret);
  }, 60_000);
});
