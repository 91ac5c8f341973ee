import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000500_webhooks extends Migration {
  override name = 'Migration20261122000500_webhooks';

  override up(): void {
    // The secret is kept as given: the service signs with it, so a hash would not do.
    this.addSql(`
      create table "webhook_subscriptions" (
        "id" uuid not null primary key,
        "name" varchar(200) null,
        "url" varchar(2048) not null,
        "events" jsonb not null,
        "secret" varchar(256) not null,
        "created_at" timestamptz not null,
        "updated_at" timestamptz not null
      );`);
    this.addSql(`create index "webhook_subscriptions_created_index" on "webhook_subscriptions" ("created_at" desc, "id" desc);`);
    // The outbox: one row per subscription and event, written in the transaction of the incident
    // change, sent after the commit; the delivery log reads it too.
    this.addSql(`
      create table "webhook_deliveries" (
        "id" uuid not null primary key,
        "subscription_id" uuid not null references "webhook_subscriptions" ("id") on delete cascade,
        "event" varchar(64) not null,
        "body" text not null,
        "status" varchar(16) not null check ("status" in ('pending', 'delivered', 'failed')),
        "attempts" integer not null default 0,
        "next_attempt_at" timestamptz null,
        "last_attempt_at" timestamptz null,
        "last_status_code" smallint null,
        "last_error" varchar(500) null,
        "created_at" timestamptz not null,
        "delivered_at" timestamptz null
      );`);
    this.addSql(`create index "webhook_deliveries_subscription_index" on "webhook_deliveries" ("subscription_id", "created_at" desc, "id" desc);`);
    this.addSql(`create index "webhook_deliveries_due_index" on "webhook_deliveries" ("next_attempt_at") where "status" = 'pending';`);
    this.addSql(`create index "webhook_deliveries_finished_index" on "webhook_deliveries" ("created_at") where "status" <> 'pending';`);
  }

  override down(): void {
    this.addSql(`drop table if exists "webhook_deliveries";`);
    this.addSql(`drop table if exists "webhook_subscriptions";`);
  }
}
