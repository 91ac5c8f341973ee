import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { columnsOf } from '../../shared/database/columns.js';
import type { ApiLogEntry } from './domain/api-log-entry.entity.js';

/**
 * Many API log rows in one statement: one array per column, sent as bind parameters (Kysely's `sql`
 * on the ORM's connection, as the incident writes). The ORM's own insert inlines every value into
 * the statement's text, which for a logged body costs more than the insert itself.
 */
const insertMany = (columns: unknown[][]) => sql`
  insert into api_log (id, token_id, received_at, method, path, status_code, headers, body_kind, body, outcome, error)
  select * from unnest(${columns[0]}::uuid[], ${columns[1]}::uuid[], ${columns[2]}::timestamptz[], ${columns[3]}::text[],
                       ${columns[4]}::text[], ${columns[5]}::smallint[], ${columns[6]}::jsonb[], ${columns[7]}::text[],
                       ${columns[8]}::text[], ${columns[9]}::jsonb[], ${columns[10]}::jsonb[])`;

const jsonOrNull = (value: unknown) => (value === null ? null : JSON.stringify(value));

/** Writes the entries in one statement (atomic on its own, or in the caller's transaction). */
export async function insertEntries(em: EntityManager, entries: readonly ApiLogEntry[]): Promise<void> {
  const rows = entries.map((e) => [e.id, e.tokenId, e.receivedAt, e.method, e.path, e.statusCode, JSON.stringify(e.headers), e.bodyKind, e.body, jsonOrNull(e.outcome), jsonOrNull(e.error)]);
  await insertMany(columnsOf(rows, 11)).execute(em.getKysely());
}
