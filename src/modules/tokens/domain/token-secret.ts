import { createHash, randomBytes } from 'node:crypto';

/** Every API token starts with this, so a leaked one is recognisable (e.g. by secret scanners). */
export const TOKEN_PREFIX = 'iit_';

/** A new secret: the prefix and 32 random bytes in base64url (47 characters). */
export function generateTokenSecret(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * What is stored instead of the secret. The secret carries 256 random bits, so a fast hash is
 * enough (nothing to brute-force) and lets intake find the token by an indexed lookup.
 */
export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Cheap shape check before touching the database. */
export function looksLikeTokenSecret(secret: string): boolean {
  return secret.startsWith(TOKEN_PREFIX) && secret.length === TOKEN_PREFIX.length + 43;
}
