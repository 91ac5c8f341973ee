import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import pg from 'pg';
import { createApp, type CreateAppOptions } from '../../src/app.js';
import { loadConfig, type AppConfig } from '../../src/config/config.js';
import { createTestDatabase, dropTestDatabase } from './database-url.js';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef0123456789';

export interface CallOptions {
  body?: unknown;
  /** Sent as is (no JSON encoding). */
  rawBody?: string | Buffer;
  /** Bearer credentials; defaults to the admin key for /api routes. null sends no Authorization. */
  auth?: string | null;
  headers?: Record<string, string>;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** The app on a fresh database, listening on a free loopback port, with a database client. */
export class TestApp {
  private constructor(
    readonly app: NestFastifyApplication,
    readonly baseUrl: string,
    readonly databaseUrl: string,
    readonly db: pg.Client,
    readonly config: AppConfig,
  ) {}

  static async start(env: Record<string, string> = {}, imports: CreateAppOptions['imports'] = []): Promise<TestApp> {
    const databaseUrl = await createTestDatabase();
    const config = loadConfig({ ADMIN_API_KEY: ADMIN_KEY, LOG_LEVEL: process.env.TEST_LOG ? 'info' : 'fatal', ...env });
    const app = await createApp({ config, database: { url: databaseUrl, migrate: false, poolSize: 10 }, logger: process.env.TEST_LOG ? ['error', 'warn'] : false, imports });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.getHttpServer().address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    return new TestApp(app, `http://127.0.0.1:${port}`, databaseUrl, db, config);
  }

  async call<T = any>(method: string, path: string, options: CallOptions = {}): Promise<CallResult<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const auth = options.auth === undefined ? (path.startsWith('/api') ? ADMIN_KEY : null) : options.auth;
    if (auth !== null) headers.authorization = `Bearer ${auth}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // keep the text
    }
    return { status: response.status, headers: response.headers, body: parsed as T, text };
  }

  /** Creates an API token and returns its id and secret. */
  async createToken(name = 'test token', extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
    const created = await this.call('POST', '/api/tokens', { body: { name, ...extra } });
    if (created.status !== 201) throw new Error(`token create failed: ${created.status} ${created.text}`);
    return { id: created.body.id, secret: created.body.token };
  }

  async count(table: string): Promise<number> {
    const result = await this.db.query(`select count(*)::int as n from "${table}"`);
    return result.rows[0].n as number;
  }

  async close(): Promise<void> {
    await this.app.close();
    await this.db.end();
    await dropTestDatabase(this.databaseUrl);
  }
}
