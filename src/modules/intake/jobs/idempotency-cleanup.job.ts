import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { MikroORM } from '@mikro-orm/postgresql';
import { pruneIdempotencyKeys } from '../idempotency.store.js';

/** Every ten minutes: forget Idempotency-Keys older than 24 hours. */
@Injectable()
export class IdempotencyCleanupJob {
  constructor(private readonly orm: MikroORM) {}

  @Interval('idempotency-cleanup', 10 * 60_000)
  async run(now = new Date()): Promise<number> {
    return pruneIdempotencyKeys(this.orm.em.fork(), now);
  }
}
