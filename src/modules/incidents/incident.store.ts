import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The incident writes of the intake, one statement (one round trip) each. Deduplication is the
 * database's: `incidents_open_mapped_unique` allows one open incident per filter and mapped value,
 * and a trigger upserts against it, so concurrent identical triggers leave one incident.
 */
export interface TriggerWrite {
  tokenId: string;
  filterId: string;
  title: string;
  description: string;
  mappedValue: string | null;
  at: Date;
}

export interface TriggerResult {
  id: string;
  created: boolean;
  triggerCount: number;
}

const INSERT = `insert into incidents (id, token_id, filter_id, title, description, mapped_value, status, trigger_count, created_at, last_triggered_at)
  values (?, ?, ?, ?, ?, ?, 'open', 1, ?, ?)`;

const UPSERT = `${INSERT}
  on conflict (filter_id, md5(mapped_value)) where status = 'open' and mapped_value is not null
  do update set trigger_count = incidents.trigger_count + 1, last_triggered_at = excluded.last_triggered_at
  returning id, trigger_count, (xmax = 0) as created`;

const RESOLVE_MAPPED = `update incidents set status = 'resolved', resolved_at = ?, resolved_by = 'filter'
  where filter_id = ? and md5(mapped_value) = md5(?) and mapped_value = ? and status = 'open'
  returning id`;

const RESOLVE_BY_ID = `update incidents set status = 'resolved', resolved_at = ?, resolved_by = 'admin'
  where id = ? and status = 'open'
  returning id, token_id, filter_id, mapped_value`;

/**
 * PostgreSQL text cannot hold U+0000 (a JSON payload can, as `\u0000`): it is stored as U+FFFD, as
 * in the API log. Applied to every text written or compared, so triggers and resolves still correlate.
 */
export function storableText<T extends string | null>(text: T): T {
  return (text === null || !text.includes('\u0000') ? text : text.replaceAll('\u0000', '\uFFFD')) as T;
}

export async function triggerIncident(em: EntityManager, write: TriggerWrite): Promise<TriggerResult> {
  const mappedValue = storableText(write.mappedValue);
  const params = [randomUUID(), write.tokenId, write.filterId, storableText(write.title), storableText(write.description), mappedValue, write.at, write.at];
  if (mappedValue === null) {
    await em.execute(INSERT, params, 'run');
    return { id: params[0] as string, created: true, triggerCount: 1 };
  }
  const [row] = await em.execute<Array<{ id: string; trigger_count: number; created: boolean }>>(UPSERT, params);
  return { id: row.id, created: row.created, triggerCount: row.trigger_count };
}

/** Resolves the open incident of this filter with this mapped value; its id, or null when none. */
export async function resolveMapped(em: EntityManager, filterId: string, mappedValue: string, at: Date): Promise<string | null> {
  const value = storableText(mappedValue);
  const rows = await em.execute<Array<{ id: string }>>(RESOLVE_MAPPED, [at, filterId, value, value]);
  return rows[0]?.id ?? null;
}

export async function resolveById(
  em: EntityManager,
  id: string,
  at: Date,
): Promise<{ id: string; token_id: string; filter_id: string; mapped_value: string | null } | null> {
  const rows = await em.execute<Array<{ id: string; token_id: string; filter_id: string; mapped_value: string | null }>>(RESOLVE_BY_ID, [at, id]);
  return rows[0] ?? null;
}
