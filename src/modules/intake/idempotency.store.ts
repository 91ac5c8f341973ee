import type { EntityManager } from '@mikro-orm/postgresql';

/** How long a key is remembered: a repeat within this window answers the first response. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600_000;

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; statusCode: number; response: unknown }
  | { kind: 'mismatch' };

/**
 * Claims (token, key) inside the caller's transaction. A concurrent call with the same key waits
 * on the row until the first commits (then replays its answer) or rolls back (then claims it). A
 * key older than the window is claimed anew.
 */
export async function claimIdempotencyKey(em: EntityManager, tokenId: string, key: string, requestHash: string, now: Date): Promise<Claim> {
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
  const claimed = await em.execute<Array<{ key: string }>>(
    `insert into idempotency_keys (token_id, key, request_hash, created_at) values (?, ?, ?, ?)
     on conflict (token_id, key) do update set request_hash = excluded.request_hash, created_at = excluded.created_at, status_code = null, response = null
       where idempotency_keys.created_at < ?
     returning key`,
    [tokenId, key, requestHash, now, cutoff],
  );
  if (claimed.length > 0) return { kind: 'claimed' };
  const [row] = await em.execute<Array<{ request_hash: string; status_code: number | null; response: unknown }>>(
    `select request_hash, status_code, response from idempotency_keys where token_id = ? and key = ?`,
    [tokenId, key],
  );
  // Gone between the two statements (pruned): claim it again.
  if (!row) return claimIdempotencyKey(em, tokenId, key, requestHash, now);
  if (row.request_hash !== requestHash) return { kind: 'mismatch' };
  return { kind: 'replay', statusCode: row.status_code ?? 202, response: row.response };
}

export async function recordIdempotentResponse(em: EntityManager, tokenId: string, key: string, statusCode: number, response: unknown): Promise<void> {
  await em.execute(`update idempotency_keys set status_code = ?, response = ? where token_id = ? and key = ?`, [statusCode, JSON.stringify(response), tokenId, key], 'run');
}

/** Forgets keys older than the window, in bounded batches; safe on several instances. */
export async function pruneIdempotencyKeys(em: EntityManager, now: Date, batch = 1000): Promise<number> {
  const cutoff = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
  let total = 0;
  for (;;) {
    const result = await em.execute<{ affectedRows: number }>(
      `delete from idempotency_keys where ctid in (select ctid from idempotency_keys where created_at < ? limit ? for update skip locked)`,
      [cutoff, batch],
      'run',
    );
    total += result.affectedRows;
    if (result.affectedRows < batch) return total;
  }
}
