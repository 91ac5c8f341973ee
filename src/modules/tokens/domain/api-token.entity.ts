import { randomUUID } from 'node:crypto';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { InvalidInputError } from '../../../shared/errors/domain-error.js';

export const TOKEN_NAME_MAX = 200;

/** An API token. Only the hash of its secret is kept; a revoked token is kept for history only. */
@Entity({ tableName: 'api_tokens' })
export class ApiToken {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ length: TOKEN_NAME_MAX })
  name: string;

  @Property({ hidden: true, unique: true })
  secretHash: string;

  @Property({ type: 'timestamptz', nullable: true })
  debugEnabledAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true })
  debugExpiresAt: Date | null = null;

  @Property({ type: 'integer', nullable: true })
  rateLimitPerMinute: number | null = null;

  @Property({ type: 'timestamptz' })
  createdAt: Date;

  @Property({ type: 'timestamptz', nullable: true })
  lastUsedAt: Date | null = null;

  @Property({ type: 'timestamptz', nullable: true, hidden: true })
  revokedAt: Date | null = null;

  constructor(name: string, secretHash: string, now: Date) {
    this.name = ApiToken.validName(name);
    this.secretHash = secretHash;
    this.createdAt = now;
  }

  private static validName(name: string): string {
    if (name.length < 1 || name.length > TOKEN_NAME_MAX) {
      throw new InvalidInputError('TOKEN_NAME_INVALID', `name must have 1 to ${TOKEN_NAME_MAX} characters`);
    }
    return name;
  }

  rename(name: string): void {
    this.name = ApiToken.validName(name);
  }

  /** Debug is on while the window is open; an expired window reads as off before any job runs. */
  isDebugActive(now: Date): boolean {
    return this.debugExpiresAt !== null && this.debugExpiresAt.getTime() > now.getTime();
  }

  /** Turning debug on (again) starts a fresh window. */
  enableDebug(now: Date, ttlMs: number): void {
    this.debugEnabledAt = now;
    this.debugExpiresAt = new Date(now.getTime() + ttlMs);
  }

  disableDebug(): void {
    this.debugEnabledAt = null;
    this.debugExpiresAt = null;
  }

  revoke(now: Date): void {
    this.revokedAt = now;
  }
}
