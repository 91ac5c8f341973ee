import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The outbox's SQL, one statement (one round trip) each. Claiming is an UPDATE over rows picked
 * with `FOR UPDATE SKIP LOCKED`: instances never claim the same row, and a claimed row is leased
 * (its next attempt moved past the attempt's timeout), so no other instance sends it while one does.
 * A result is written only while the row still holds the claim that sent it (same attempt count).
 */

export interface NewDelivery {
  id: string;
  subscriptionId: string;
  body: string;
}

export interface ClaimedDelivery {
  id: string;
  subscriptionId: string;
  event: string;
  body: string;
  /** Counting the attempt just claimed. */
  attempts: number;
  createdAt: Date;
  url: string;
  secret: string;
}

/**
 * Inserts pending deliveries of one event, due now, for the subscriptions that still exist and
 * still want the event (the caller's list may be up to a cache lifetime old). The subscriptions are
 * key-share locked, so one deleted meanwhile is either waited for or skipped, never a failed insert.
 */
export async function insertDeliveries(em: EntityManager, event: string, rows: NewDelivery[], now: Date): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await em.execute<{ affectedRows: number }>(
    `insert into webhook_deliveries (id, subscription_id, event, body, status, attempts, next_attempt_at, created_at)
     select v.id, s.id, ?, v.body, 'pending', 0, ?, ?
     from jsonb_to_recordset(?::jsonb) as v(id uuid, subscription_id uuid, body text)
     join webhook_subscriptions s on s.id = v.subscription_id and s.events @> jsonb_build_array(?::text)
     for key share of s`,
    [event, now, now, JSON.stringify(rows.map((r) => ({ id: r.id, subscription_id: r.subscriptionId, body: r.body }))), event],
    'run',
  );
  return result.affectedRows;
}

/** Claims up to `limit` due deliveries for one attempt each, leased until `leaseUntil`. */
export async function claimDueDeliveries(em: EntityManager, now: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
  const rows = await em.execute<Array<{ id: string; subscription_id: string; event: string; body: string; attempts: number; created_at: Date | string; url: string; secret: string }>>(
    `update webhook_deliveries d set attempts = d.attempts + 1, last_attempt_at = ?, next_attempt_at = ?
     from webhook_subscriptions s
     where s.id = d.subscription_id
       and d.id in (select id from webhook_deliveries where status = 'pending' and next_attempt_at <= ? order by next_attempt_at limit ? for update skip locked)
     returning d.id, d.subscription_id, d.event, d.body, d.attempts, d.created_at, s.url, s.secret`,
    [now, leaseUntil, now, limit],
  );
  return rows.map((r) => ({
    id: r.id,
    subscriptionId: r.subscription_id,
    event: r.event,
    body: r.body,
    attempts: r.attempts,
    createdAt: new Date(r.created_at),
    url: r.url,
    secret: r.secret,
  }));
}

export type AttemptOutcome =
  | { kind: 'delivered'; statusCode: number; at: Date }
  | { kind: 'retry'; statusCode: number | null; error: string; nextAttemptAt: Date }
  | { kind: 'failed'; statusCode: number | null; error: string };

/** Records the outcome of the attempt that claimed the row as its `attempts`-th; false when the claim was lost. */
export async function recordAttempt(em: EntityManager, delivery: { id: string; attempts: number }, outcome: AttemptOutcome): Promise<boolean> {
  const error = outcome.kind === 'delivered' ? null : outcome.error.slice(0, 500);
  const [status, nextAttemptAt, deliveredAt] =
    outcome.kind === 'delivered' ? ['delivered', null, outcome.at] : outcome.kind === 'retry' ? ['pending', outcome.nextAttemptAt, null] : ['failed', null, null];
  const result = await em.execute<{ affectedRows: number }>(
    `update webhook_deliveries set status = ?, next_attempt_at = ?, delivered_at = ?, last_status_code = ?, last_error = ?
     where id = ? and attempts = ? and status = 'pending'`,
    [status, nextAttemptAt, deliveredAt, outcome.statusCode, error, delivery.id, delivery.attempts],
    'run',
  );
  return result.affectedRows > 0;
}

/** Deletes delivered and failed deliveries created before `cutoff`, in bounded batches. */
export async function pruneFinishedDeliveries(em: EntityManager, cutoff: Date, batch = 1000): Promise<number> {
  let total = 0;
  for (;;) {
    const result = await em.execute<{ affectedRows: number }>(
      `delete from webhook_deliveries where id in (select id from webhook_deliveries where status <> 'pending' and created_at < ? limit ? for update skip locked)`,
      [cutoff, batch],
      'run',
    );
    total += result.affectedRows;
    if (result.affectedRows < batch) return total;
  }
}
