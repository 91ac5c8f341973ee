import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIPv4 } from 'node:net';
import { ConfigError, type TlsFiles, type TrustProxy } from './config.js';

/** HSTS max-age, sent on every response while the service serves HTTPS itself (one year). */
export const HSTS_MAX_AGE_SECONDS = 31_536_000;

/** The PEM contents given to the HTTPS server, checked to belong together. */
export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
  /** The (first) certificate's subject and end of validity, for the start-up output. */
  subject: string;
  validTo: Date;
}

const firstLine = (error: unknown) => String((error as { message?: unknown })?.message ?? error).split('\n')[0];

function readPem(variable: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new ConfigError(variable, `cannot be read (${firstLine(error)})`);
  }
}

/**
 * Reads TLS_CERT_FILE and TLS_KEY_FILE and checks that the key belongs to the certificate, so that
 * a wrong pair stops the start with one line instead of failing every handshake later.
 */
export function loadTlsCredentials(files: TlsFiles): TlsCredentials {
  const cert = readPem('TLS_CERT_FILE', files.certFile);
  const key = readPem('TLS_KEY_FILE', files.keyFile);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new ConfigError('TLS_CERT_FILE', `is not a PEM certificate: ${files.certFile} (${firstLine(error)})`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (error) {
    throw new ConfigError('TLS_KEY_FILE', `is not an unencrypted PEM private key: ${files.keyFile} (${firstLine(error)})`);
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new ConfigError('TLS_KEY_FILE', `does not match the certificate in TLS_CERT_FILE (${files.keyFile} vs ${files.certFile})`);
  }
  return { cert, key, subject: certificate.subject.replace(/\n/g, ', '), validTo: certificate.validToDate };
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export function isLoopbackHost(host: string): boolean {
  const name = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name === '::1' || name === '0:0:0:0:0:0:0:1') return true;
  const v4 = name.startsWith('::ffff:') ? name.slice(7) : name;
  return isIPv4(v4) && v4.startsWith('127.');
}

/** The base URL of the address the service listens on; a wildcard host is shown as localhost. */
export function listeningBaseUrl(host: string, port: number, tls: boolean): string {
  const shown = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return new URL(`${tls ? 'https' : 'http'}://${shown.includes(':') ? `[${shown}]` : shown}:${port}`).origin;
}

/**
 * TRUST_PROXY in the form Fastify takes. Fastify ignores a bare hop count (it trusts nothing), so a
 * count becomes the classic rule: the nearest `hops` addresses are proxies.
 */
export function fastifyTrustProxy(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}
