import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000100_api_tokens extends Migration {
  override name = 'Migration20261122000100_api_tokens';

  override up(): void {
    this.addSql(`
      create table "api_tokens" (
        "id" uuid not null primary key,
        "name" varchar(200) not null,
        "secret_hash" varchar(64) not null,
        "debug_enabled_at" timestamptz null,
        "debug_expires_at" timestamptz null,
        "rate_limit_per_minute" integer null,
        "created_at" timestamptz not null,
        "last_used_at" timestamptz null,
        "revoked_at" timestamptz null,
        constraint "api_tokens_secret_hash_unique" unique ("secret_hash")
      );`);
    this.addSql(`create index "api_tokens_live_created_idx" on "api_tokens" ("created_at" desc, "id" desc) where "revoked_at" is null;`);
    this.addSql(`create index "api_tokens_debug_expires_idx" on "api_tokens" ("debug_expires_at") where "debug_expires_at" is not null;`);
  }

  override down(): void {
    this.addSql(`drop table if exists "api_tokens";`);
  }
}
