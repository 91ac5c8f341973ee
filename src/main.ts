import { createApp } from './app.js';
import { ConfigError, loadConfig, type AppConfig } from './config/config.js';
import { EmbeddedPostgres, EmbeddedPostgresError } from './database/embedded-postgres.js';

/** Starts the service: configuration, database (embedded unless DATABASE_URL), HTTP. */
async function main(): Promise<void> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }

  let embedded: EmbeddedPostgres | null = null;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = new EmbeddedPostgres({ dataDir: config.dataDir, onNotice: (line) => console.log(line) });
    try {
      databaseUrl = await embedded.start();
    } catch (error) {
      await embedded.stop().catch(() => undefined);
      console.error(`Cannot start the embedded PostgreSQL: ${error instanceof EmbeddedPostgresError ? error.message : String(error)}`);
      process.exit(1);
    }
  }

  let app: Awaited<ReturnType<typeof createApp>>;
  try {
    app = await createApp({ config, database: { url: databaseUrl, migrate: true } });
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    console.error(`Cannot start: ${error instanceof Error ? error.message : String(error)}`);
    await embedded?.stop().catch(() => undefined);
    process.exit(1);
  }

  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const base = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
  const lines = [
    `Incident intake is listening on ${base}`,
    `  Swagger UI:    ${base}/docs`,
    `  OpenAPI:       ${base}/docs-json`,
    `  Trace intake:  POST ${base}/v1/trace`,
    `  Alert intake:  POST ${base}/v1/alert`,
    `  Database:      ${embedded ? `embedded PostgreSQL, data in ${embedded.clusterDir}` : 'DATABASE_URL'}`,
  ];
  if (config.adminApiKeyGenerated) {
    lines.push(`  Admin key (generated for this run; set ADMIN_API_KEY to keep one): ${config.adminApiKey}`);
  }
  console.log(lines.join('\n'));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing requests in flight, then stopping`);
    try {
      await app.close();
    } finally {
      await embedded?.stop();
    }
    console.log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
