import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000400_idempotency_keys extends Migration {
  override name = 'Migration20261122000400_idempotency_keys';

  override up(): void {
    // One row per token and Idempotency-Key, written in the same transaction as the call's effects.
    this.addSql(`
      create table "idempotency_keys" (
        "token_id" uuid not null,
        "key" varchar(255) not null,
        "request_hash" varchar(64) not null,
        "created_at" timestamptz not null,
        "status_code" smallint null,
        "response" jsonb null,
        primary key ("token_id", "key")
      );`);
    this.addSql(`create index "idempotency_keys_created_at_index" on "idempotency_keys" ("created_at");`);
  }

  override down(): void {
    this.addSql(`drop table if exists "idempotency_keys";`);
  }
}
