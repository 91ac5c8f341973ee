import { createApp } from './app.js';
import { ConfigError, loadConfig, type AppConfig } from './config/config.js';
import { isLoopbackHost, listeningBaseUrl, loadTlsCredentials, type TlsCredentials } from './config/transport.js';
import { EmbeddedPostgres, EmbeddedPostgresError } from './database/embedded-postgres.js';

/** Starts the service: configuration, database (embedded unless DATABASE_URL), HTTP. */
async function main(): Promise<void> {
  let config: AppConfig;
  let tls: TlsCredentials | null;
  try {
    config = loadConfig();
    // Read and matched before anything starts, so a wrong certificate or key is one line.
    tls = config.tls ? loadTlsCredentials(config.tls) : null;
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
  const base = listeningBaseUrl(config.host, port, tls !== null);
  const publicBase = config.publicBaseUrl ?? base;
  const lines = [
    `Incident intake is listening on ${base}`,
    `  Swagger UI:    ${base}/docs`,
    `  OpenAPI:       ${base}/docs-json`,
    `  Trace intake:  POST ${publicBase}/v1/trace`,
    `  Alert intake:  POST ${publicBase}/v1/alert`,
    ...(tls ? [`  TLS:           ${tls.subject}, valid until ${tls.validTo.toISOString()}; HSTS on`] : []),
    `  Database:      ${embedded ? `embedded PostgreSQL, data in ${embedded.clusterDir}` : 'DATABASE_URL'}`,
  ];
  if (config.adminApiKeyGenerated) {
    lines.push(`  Admin key (generated for this run; set ADMIN_API_KEY to keep one): ${config.adminApiKey}`);
  }
  console.log(lines.join('\n'));
  if (tls && tls.validTo.getTime() < Date.now()) {
    console.warn(`Warning: the certificate in TLS_CERT_FILE expired at ${tls.validTo.toISOString()}; senders will refuse it`);
  }
  if (!tls && !isLoopbackHost(config.host)) {
    console.warn(
      `Warning: plain HTTP on ${config.host}: a TLS-terminating proxy must be in front (or set TLS_CERT_FILE and TLS_KEY_FILE)` +
        (config.publicBaseUrl ? '' : '; set PUBLIC_BASE_URL to the address senders use'),
    );
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received: finishing requests in flight, then stopping`);
    // Node closes idle keep-alive connections once, when closing starts; a connection whose request
    // finishes during the drain would otherwise hold the exit for the keep-alive timeout.
    const server = app.getHttpServer() as import('node:http').Server;
    const reaper = setInterval(() => server.closeIdleConnections(), 100);
    try {
      await app.close();
    } finally {
      clearInterval(reaper);
      await embedded?.stop();
    }
    console.log('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

void main();
