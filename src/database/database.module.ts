import { Global, Inject, Logger, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { Migrator } from '@mikro-orm/migrations';
import { MikroORM } from '@mikro-orm/postgresql';
import { ReflectMetadataProvider } from '@mikro-orm/decorators/legacy';
import pg from 'pg';
import { migrationsList } from '../../migrations/index.js';
import { entities } from './entities.js';

export interface DatabaseOptions {
  url: string;
  /** Apply pending migrations at start-up (under an advisory lock, so instances take turns). */
  migrate: boolean;
  poolSize?: number;
}

/** Arbitrary constant naming the migration lock. */
const MIGRATION_LOCK = 724_311_905;

export async function createOrm(options: DatabaseOptions): Promise<MikroORM> {
  const orm = await MikroORM.init({
    clientUrl: options.url,
    entities,
    metadataProvider: ReflectMetadataProvider,
    extensions: [Migrator],
    migrations: { migrationsList, silent: true, snapshot: false, transactional: true, allOrNothing: true },
    // Enough for many concurrent intake calls; a call that waits longer than the connection timeout
    // for one is answered 503 with Retry-After (backpressure) rather than queued without bound. Two
    // stay open when idle, so that a lookup or write after a quiet spell (or a run of unmatched
    // calls, which touch no connection) does not pay for opening one inside a call.
    pool: { min: Math.min(2, options.poolSize ?? 40), max: options.poolSize ?? 40 },
    // Fail fast when PostgreSQL is unreachable: intake answers 503 within 2 seconds.
    driverOptions: { connectionTimeoutMillis: 1500 },
    forceUtcTimezone: true,
    debug: false,
    allowGlobalContext: false,
  });
  if (options.migrate) await migrate(orm, options.url);
  return orm;
}

/** Runs pending migrations; a second instance starting at once waits for the first. */
export async function migrate(orm: MikroORM, url: string): Promise<void> {
  const lock = new pg.Client({ connectionString: url });
  await lock.connect();
  try {
    await lock.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await orm.migrator.up();
  } finally {
    await lock.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.end();
  }
}

@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  private readonly logger = new Logger('Database');

  constructor(@Inject(MikroORM) private readonly orm: MikroORM) {}

  static forRoot(options: DatabaseOptions): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [{ provide: MikroORM, useFactory: () => createOrm(options) }],
      exports: [MikroORM],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.orm.close();
    this.logger.log('connections closed');
  }
}
