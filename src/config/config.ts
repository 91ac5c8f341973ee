import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'verbose'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Typed, validated configuration. Built once at boot from the environment. */
export interface AppConfig {
  nodeEnv: string;
  port: number;
  host: string;
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
}

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
  const admin = readAdminKey(env, nodeEnv);
  return {
    nodeEnv,
    port: readPort(env),
    host,
    databaseUrl: readDatabaseUrl(env),
    dataDir: resolve(env.DATA_DIR?.trim() || '.data'),
    adminApiKey: admin.key,
    adminApiKeyGenerated: admin.generated,
    logLevel,
    debugTtlMs,
    apiLogRetentionMs,
  };
}

/** Injection token for the AppConfig. */
export const APP_CONFIG = Symbol('APP_CONFIG');
