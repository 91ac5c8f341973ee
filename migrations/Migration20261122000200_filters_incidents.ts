import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000200_filters_incidents extends Migration {
  override name = 'Migration20261122000200_filters_incidents';

  override up(): void {
    this.addSql(`
      create table "filters" (
        "id" uuid not null primary key,
        "token_id" uuid not null references "api_tokens" ("id") on delete cascade,
        "name" varchar(200) null,
        "template" varchar(100) null,
        "trigger_payload_key" varchar(500) not null,
        "trigger_value_contains" varchar(1000) not null,
        "trigger_map_incident_with" varchar(500) null,
        "trigger_title_from" varchar(500) not null,
        "trigger_description_from" varchar(500) null,
        "resolve_payload_key" varchar(500) null,
        "resolve_value_contains" varchar(1000) null,
        "resolve_incident_mapped_with" varchar(500) null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null,
        constraint "filters_resolve_all_or_none" check (
          ("resolve_payload_key" is null) = ("resolve_value_contains" is null)
          and ("resolve_value_contains" is null) = ("resolve_incident_mapped_with" is null))
      );`);
    this.addSql(`create index "filters_token_id_created_at_index" on "filters" ("token_id", "created_at");`);
    this.addSql(`create index "filters_created_at_id_index" on "filters" ("created_at" desc, "id" desc);`);

    // No foreign key to filters: incidents outlive the filter that opened them.
    this.addSql(`
      create table "incidents" (
        "id" uuid not null primary key,
        "token_id" uuid not null,
        "filter_id" uuid not null,
        "title" varchar(1000) not null,
        "description" text not null,
        "mapped_value" text null,
        "status" varchar(16) not null default 'open' check ("status" in ('open', 'resolved')),
        "trigger_count" integer not null default 1,
        "created_at" timestamptz not null,
        "last_triggered_at" timestamptz not null,
        "resolved_at" timestamptz null,
        "resolved_by" varchar(16) null check ("resolved_by" in ('filter', 'admin')),
        constraint "incidents_resolution_consistent" check (("status" = 'resolved') = ("resolved_at" is not null))
      );`);
    // One open incident per filter and mapped value; md5 keeps long values within index limits.
    this.addSql(`create unique index "incidents_open_mapped_unique" on "incidents" ("filter_id", md5("mapped_value")) where "status" = 'open' and "mapped_value" is not null;`);
    this.addSql(`create index "incidents_created_at_id_index" on "incidents" ("created_at" desc, "id" desc);`);
    this.addSql(`create index "incidents_status_created_at_index" on "incidents" ("status", "created_at" desc, "id" desc);`);
    this.addSql(`create index "incidents_token_id_created_at_index" on "incidents" ("token_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "incidents_filter_id_created_at_index" on "incidents" ("filter_id", "created_at" desc, "id" desc);`);
  }

  override down(): void {
    this.addSql(`drop table if exists "incidents";`);
    this.addSql(`drop table if exists "filters";`);
  }
}
