import { randomUUID } from 'node:crypto';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import type { BodyKind, PayloadOutcome } from '../../intake/contracts.js';

/** One intake call of a token in debug mode, as received and as answered. */
@Entity({ tableName: 'api_log' })
export class ApiLogEntry {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'uuid' })
  tokenId!: string;

  @Property({ type: 'timestamptz' })
  receivedAt!: Date;

  @Property({ length: 10 })
  method!: string;

  @Property({ length: 2048 })
  path!: string;

  @Property({ type: 'smallint' })
  statusCode!: number;

  @Property({ type: 'json' })
  headers!: Record<string, string>;

  @Property({ length: 8 })
  bodyKind!: BodyKind;

  /** The body text after decompression; PostgreSQL text cannot hold NUL, stored as U+FFFD. */
  @Property({ type: 'text', nullable: true })
  body!: string | null;

  @Property({ type: 'json', nullable: true })
  outcome!: PayloadOutcome[] | null;

  @Property({ type: 'json', nullable: true })
  error!: { code: string | null; message: string } | null;
}
