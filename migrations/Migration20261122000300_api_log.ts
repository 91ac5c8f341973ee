import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000300_api_log extends Migration {
  override name = 'Migration20261122000300_api_log';

  override up(): void {
    // The body is kept as the text received (after decompression), so numbers keep their digits.
    this.addSql(`
      create table "api_log" (
        "id" uuid not null primary key,
        "token_id" uuid not null,
        "received_at" timestamptz not null,
        "method" varchar(10) not null,
        "path" varchar(2048) not null,
        "status_code" smallint not null,
        "headers" jsonb not null,
        "body_kind" varchar(8) not null check ("body_kind" in ('json', 'text', 'none')),
        "body" text null,
        "outcome" jsonb null,
        "error" jsonb null
      );`);
    this.addSql(`create index "api_log_token_received_index" on "api_log" ("token_id", "received_at" desc, "id" desc);`);
    this.addSql(`create index "api_log_received_index" on "api_log" ("received_at" desc, "id" desc);`);
  }

  override down(): void {
    this.addSql(`drop table if exists "api_log";`);
  }
}
