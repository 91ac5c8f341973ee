import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { resolve } from 'node:path';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'verbose'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Typed, validated configuration. Built once at boot from the environment. */
export interface AppConfig {
  nodeEnv: string;
  port: number;
  host: string;
  /** The address senders use (endpoint settings), without a trailing slash; null: the listening address. */
  publicBaseUrl: string | null;
  /** PEM files to serve HTTPS with; null: plain HTTP, for a TLS-terminating proxy in front. */
  tls: TlsFiles | null;
  /** Which proxies' X-Forwarded-* headers to believe (Fastify's `trustProxy`). */
  trustProxy: TrustProxy;
  /** External PostgreSQL; when unset an embedded server is started under `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  adminApiKey: string;
  /** True when the admin key was generated for this run (printed once at start-up). */
  adminApiKeyGenerated: boolean;
  logLevel: LogLevel;
  /** How long a token's debug mode lasts once turned on, in milliseconds. */
  debugTtlMs: number;
  /** API log entries older than this are deleted, in milliseconds. */
  apiLogRetentionMs: number;
  /** Intake calls a minute per token (per instance) unless the token sets its own; null: off. */
  intakeRateLimit: number | null;
  /** Outbound webhooks: the first retry's delay, doubled on each further failure (capped), in ms. */
  webhookRetryBaseMs: number;
  /** Outbound webhooks: how long after the event a delivery is retried before it is failed, in ms. */
  webhookMaxAgeMs: number;
  /** Outbound webhooks: how long one attempt may take before it counts as failed, in ms. */
  webhookTimeoutMs: number;
}

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** false, true (every proxy), a hop count, or the addresses/CIDRs of the trusted proxies. */
export type TrustProxy = boolean | number | string[];

/** A configuration value that stops the start; `message` is the one line shown to the operator. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

const DURATION_UNITS_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `48h`, `90m`, `30s`, `2d` or a bare number of seconds; null when malformed. */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)([smhd]?)$/.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * DURATION_UNITS_MS[match[2] || 's'];
  return ms > 0 && Number.isSafeInteger(ms) ? ms : null;
}

function readPort(env: NodeJS.ProcessEnv): number {
  const raw = env.PORT ?? '3000';
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError('PORT', `must be an integer from 0 to 65535, got "${raw}"`);
  }
  return port;
}

function readDatabaseUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = env.DATABASE_URL?.trim();
  if (!raw) return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL', 'is not a URL (expected postgres://user:password@host:5432/database)');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError('DATABASE_URL', `must use postgres:// or postgresql://, got "${url.protocol}"`);
  }
  return raw;
}

function readAdminKey(env: NodeJS.ProcessEnv, nodeEnv: string): { key: string; generated: boolean } {
  const raw = env.ADMIN_API_KEY;
  if (raw === undefined || raw === '') {
    if (nodeEnv === 'production') {
      throw new ConfigError('ADMIN_API_KEY', 'must be set when NODE_ENV=production');
    }
    return { key: `adm_${randomBytes(32).toString('base64url')}`, generated: true };
  }
  if (raw.length < 32 || /\s/.test(raw)) {
    throw new ConfigError('ADMIN_API_KEY', 'must be at least 32 characters without spaces (try: openssl rand -hex 32)');
  }
  return { key: raw, generated: false };
}

function readPublicBaseUrl(env: NodeJS.ProcessEnv): string | null {
  const raw = env.PUBLIC_BASE_URL?.trim();
  if (!raw) return null;
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigError('PUBLIC_BASE_URL', `must be the http:// or https:// address senders use (e.g. https://intake.example.com), got ${JSON.stringify(raw)}`);
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new ConfigError('PUBLIC_BASE_URL', `must not carry credentials, a query or a fragment, got ${JSON.stringify(raw)}`);
  }
  // A path is kept (a proxy may serve the service under a prefix); trailing slashes are not.
  return url.origin + url.pathname.replace(/\/+$/, '');
}

function readTls(env: NodeJS.ProcessEnv): TlsFiles | null {
  const certFile = env.TLS_CERT_FILE?.trim();
  const keyFile = env.TLS_KEY_FILE?.trim();
  if (!certFile && !keyFile) return null;
  if (!keyFile) throw new ConfigError('TLS_KEY_FILE', 'must be set together with TLS_CERT_FILE (both or neither)');
  if (!certFile) throw new ConfigError('TLS_CERT_FILE', 'must be set together with TLS_KEY_FILE (both or neither)');
  return { certFile: resolve(certFile), keyFile: resolve(keyFile) };
}

/** proxy-addr's named ranges, accepted in TRUST_PROXY lists beside addresses and CIDRs. */
const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

function readTrustProxy(env: NodeJS.ProcessEnv): TrustProxy {
  const raw = env.TRUST_PROXY?.trim() ?? '';
  if (raw === '' || raw.toLowerCase() === 'false') return false;
  if (raw.toLowerCase() === 'true') return true;
  if (/^\d{1,3}$/.test(raw)) return Number(raw);
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const bad = entries.find((entry) => !isProxyAddress(entry));
  if (entries.length === 0 || bad !== undefined) {
    throw new ConfigError('TRUST_PROXY', `must be false, true, a hop count or a comma-separated list of addresses/CIDRs (e.g. 10.0.0.0/8,127.0.0.1), got ${JSON.stringify(bad ?? raw)}`);
  }
  return entries;
}

/** A whole number of milliseconds from `min` to `max`, or the default when unset. */
function readMilliseconds(env: NodeJS.ProcessEnv, variable: string, fallback: number, min: number, max: number): number {
  const raw = env[variable]?.trim() || String(fallback);
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(variable, `must be a whole number of milliseconds from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const nodeEnv = env.NODE_ENV ?? 'development';
  const host = env.HOST?.trim() || '127.0.0.1';
  const logLevel = (env.LOG_LEVEL?.trim() || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const debugTtlRaw = env.API_TOKEN_DEBUG_TTL?.trim() || '48h';
  const debugTtlMs = parseDuration(debugTtlRaw);
  if (debugTtlMs === null) {
    throw new ConfigError('API_TOKEN_DEBUG_TTL', `must be a number with a unit s, m, h or d (e.g. 48h), got "${debugTtlRaw}"`);
  }
  const retentionRaw = env.API_LOG_RETENTION?.trim() || '30d';
  const apiLogRetentionMs = parseDuration(retentionRaw);
  if (apiLogRetentionMs === null) {
    throw new ConfigError('API_LOG_RETENTION', `must be a number with a unit s, m, h or d (e.g. 30d), got "${retentionRaw}"`);
  }
  const rateRaw = env.INTAKE_RATE_LIMIT?.trim() || '6000';
  const intakeRateLimit = rateRaw === 'off' ? null : /^[1-9]\d{0,8}$/.test(rateRaw) ? Number(rateRaw) : undefined;
  if (intakeRateLimit === undefined) {
    throw new ConfigError('INTAKE_RATE_LIMIT', `must be a positive number of requests a minute, or off; got "${rateRaw}"`);
  }
  const webhookMaxAgeRaw = env.WEBHOOK_MAX_AGE?.trim() || '24h';
  const webhookMaxAgeMs = parseDuration(webhookMaxAgeRaw);
  if (webhookMaxAgeMs === null) {
    throw new ConfigError('WEBHOOK_MAX_AGE', `must be a number with a unit s, m, h or d (e.g. 24h), got "${webhookMaxAgeRaw}"`);
  }
  const admin = readAdminKey(env, nodeEnv);
  return {
    nodeEnv,
    port: readPort(env),
    host,
    publicBaseUrl: readPublicBaseUrl(env),
    tls: readTls(env),
    trustProxy: readTrustProxy(env),
    databaseUrl: readDatabaseUrl(env),
    dataDir: resolve(env.DATA_DIR?.trim() || '.data'),
    adminApiKey: admin.key,
    adminApiKeyGenerated: admin.generated,
    logLevel,
    debugTtlMs,
    apiLogRetentionMs,
    intakeRateLimit,
    webhookRetryBaseMs: readMilliseconds(env, 'WEBHOOK_RETRY_BASE_MS', 1000, 1, 3_600_000),
    webhookMaxAgeMs,
    webhookTimeoutMs: readMilliseconds(env, 'WEBHOOK_TIMEOUT_MS', 5000, 1, 120_000),
  };
}

/** Injection token for the AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
