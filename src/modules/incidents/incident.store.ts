import { createHash, randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { columnsOf } from '../../shared/database/columns.js';
import { fanOutTriggers, planRounds, type WriteRound } from './domain/write-plan.js';

/**
 * The incident writes of the intake, many in one statement. Deduplication is the database's:
 * `incidents_open_mapped_unique` allows one open incident per filter and mapped value, and
 * triggers upsert against it, so concurrent identical triggers leave one incident.
 */
export interface TriggerWrite {
  kind: 'trigger';
  tokenId: string;
  filterId: string;
  title: string;
  description: string;
  mappedValue: string | null;
  at: Date;
}

export interface ResolveWrite {
  kind: 'resolve';
  filterId: string;
  mappedValue: string;
  at: Date;
}

export type IncidentWrite = TriggerWrite | ResolveWrite;

export interface TriggerResult {
  kind: 'trigger';
  id: string;
  created: boolean;
  triggerCount: number;
}

export interface ResolveResult {
  kind: 'resolve';
  /** The incident resolved, or null when none was open. */
  id: string | null;
}

export type IncidentWriteResult = TriggerResult | ResolveResult;

type UpsertRow = { id: string; filter_id: string; mapped_md5: string | null; trigger_count: number; created: boolean };
type ResolveRow = { id: string; filter_id: string; mapped_value: string };

// Many rows in one statement: one array per column, sent as bind parameters (Kysely's `sql`; the
// ORM's own `execute` inlines values and cannot express an array holding NULL).
const upsertMany = (columns: unknown[][]) => sql<UpsertRow>`
  insert into incidents (id, token_id, filter_id, title, description, mapped_value, status, trigger_count, created_at, last_triggered_at)
  select v.id, v.token_id, v.filter_id, v.title, v.description, v.mapped_value, 'open', v.n, v.created_at, v.last_at
  from unnest(${columns[0]}::uuid[], ${columns[1]}::uuid[], ${columns[2]}::uuid[], ${columns[3]}::text[], ${columns[4]}::text[],
              ${columns[5]}::text[], ${columns[6]}::int[], ${columns[7]}::timestamptz[], ${columns[8]}::timestamptz[])
    as v(id, token_id, filter_id, title, description, mapped_value, n, created_at, last_at)
  on conflict (filter_id, md5(mapped_value)) where status = 'open' and mapped_value is not null
  do update set trigger_count = incidents.trigger_count + excluded.trigger_count, last_triggered_at = excluded.last_triggered_at
  returning id, filter_id, md5(mapped_value) as mapped_md5, trigger_count, (xmax = 0) as created`;

const resolveMany = (filterIds: string[], values: string[], ats: Date[]) => sql<ResolveRow>`
  update incidents i set status = 'resolved', resolved_at = v.at, resolved_by = 'filter'
  from unnest(${filterIds}::uuid[], ${values}::text[], ${ats}::timestamptz[]) as v(filter_id, mapped_value, at)
  where i.filter_id = v.filter_id and md5(i.mapped_value) = md5(v.mapped_value) and i.mapped_value = v.mapped_value and i.status = 'open'
  returning i.id, i.filter_id, i.mapped_value`;

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

/** The open incident a write can touch: its filter and the hash of its mapped value, as the unique index has it. */
const keyOf = (filterId: string, md5: string) => `${filterId}/${md5}`;
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/**
 * Carries out incident writes with the outcome of running them one by one in this order, in as few
 * statements as the order allows (see planRounds): usually one upsert for every trigger and one
 * update for every resolve. Runs in the caller's transaction; returns one result per write.
 */
export async function applyIncidentWrites(em: EntityManager, writes: readonly IncidentWrite[]): Promise<IncidentWriteResult[]> {
  const values = writes.map((w) => storableText(w.mappedValue));
  const keys = writes.map((w, i) => (values[i] === null ? null : keyOf(w.filterId, md5(values[i]))));
  const results: IncidentWriteResult[] = new Array(writes.length);
  for (const round of planRounds(writes.map((w, i) => ({ kind: w.kind, key: keys[i] })))) {
    if (round.triggers.size + round.unkeyed.length > 0) await upsertTriggers(em, writes as TriggerWrite[], round, results);
    if (round.resolves.length > 0) await resolveAll(em, writes as ResolveWrite[], values as string[], round.resolves, results);
  }
  return results;
}

async function upsertTriggers(em: EntityManager, writes: readonly TriggerWrite[], round: WriteRound, results: IncidentWriteResult[]): Promise<void> {
  // Rows in key order, so that concurrent transactions take the index's locks in the same order.
  // A row is found again by its key (the round's), or by its id when it has no mapped value.
  const groups: Array<[key: string | null, indexes: number[]]> = [...round.triggers.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const index of round.unkeyed) groups.push([null, [index]]);
  const idOf = new Map<string, number[]>();
  const values = groups.map(([key, indexes]) => {
    const first = writes[indexes[0]];
    const id = randomUUID();
    idOf.set(key ?? id, indexes);
    return [id, first.tokenId, first.filterId, storableText(first.title), storableText(first.description), storableText(first.mappedValue), indexes.length, first.at, writes[indexes[indexes.length - 1]].at];
  });
  const { rows } = await upsertMany(columnsOf(values, 9)).execute(em.getKysely());
  for (const row of rows) {
    const indexes = idOf.get(row.mapped_md5 === null ? row.id : keyOf(row.filter_id, row.mapped_md5));
    if (!indexes) throw new Error(`the incident upsert returned a row no write asked for (${row.id})`);
    fanOutTriggers(indexes.length, { created: row.created, triggerCount: row.trigger_count }).forEach((outcome, k) => {
      results[indexes[k]] = { kind: 'trigger', id: row.id, ...outcome };
    });
  }
  if (rows.length !== groups.length) throw new Error(`the incident upsert returned ${rows.length} rows for ${groups.length}`);
}

async function resolveAll(em: EntityManager, writes: readonly ResolveWrite[], values: readonly string[], indexes: readonly number[], results: IncidentWriteResult[]): Promise<void> {
  // One row per filter and value; a repeat finds the incident already resolved by the first.
  const first = new Map<string, number>();
  for (const index of indexes) {
    const key = `${writes[index].filterId}/${values[index]}`;
    if (!first.has(key)) first.set(key, index);
    results[index] = { kind: 'resolve', id: null };
  }
  const unique = [...first.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, index]) => index);
  const { rows } = await resolveMany(
    unique.map((i) => writes[i].filterId),
    unique.map((i) => values[i]),
    unique.map((i) => writes[i].at),
  ).execute(em.getKysely());
  for (const row of rows) {
    const index = first.get(`${row.filter_id}/${row.mapped_value}`);
    if (index === undefined) throw new Error(`the incident resolve returned a row no write asked for (${row.id})`);
    results[index] = { kind: 'resolve', id: row.id };
  }
}

export async function resolveById(
  em: EntityManager,
  id: string,
  at: Date,
): Promise<{ id: string; token_id: string; filter_id: string; mapped_value: string | null } | null> {
  const rows = await em.execute<Array<{ id: string; token_id: string; filter_id: string; mapped_value: string | null }>>(RESOLVE_BY_ID, [at, id]);
  return rows[0] ?? null;
}
