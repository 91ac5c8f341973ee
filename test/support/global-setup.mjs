// Runs outside jest's module system, so it uses the build (`npm test` builds first).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { EmbeddedPostgres } from '../../dist/src/database/embedded-postgres.js';
import { createOrm } from '../../dist/src/database/database.module.js';

export const TEMPLATE_DATABASE = 'intake_test_template';

/**
 * One PostgreSQL for the whole run: the embedded server in a temporary directory, or the server
 * of DATABASE_URL. A migrated template database is made once; each test file copies it.
 */
export default async function globalSetup() {
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    const dataDir = await mkdtemp(join(tmpdir(), 'intake-test-'));
    const embedded = new EmbeddedPostgres({ dataDir });
    serverUrl = await embedded.start();
    globalThis.__EMBEDDED_PG__ = embedded;
    globalThis.__EMBEDDED_PG_DIR__ = dataDir;
  }
  process.env.TEST_SERVER_URL = serverUrl;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${TEMPLATE_DATABASE} with (force)`);
  await admin.query(`create database ${TEMPLATE_DATABASE}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${TEMPLATE_DATABASE}`;
  const orm = await createOrm({ url: url.toString(), migrate: true, poolSize: 2 });
  await orm.close();
}
