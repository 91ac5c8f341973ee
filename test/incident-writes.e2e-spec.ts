import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { MikroORM } from '@mikro-orm/postgresql';
import { inTransaction } from '../src/shared/database/transaction.js';
import { applyIncidentWrites, type IncidentWrite, type IncidentWriteResult } from '../src/modules/incidents/incident.store.js';
import { TestApp } from './support/test-app.js';

/**
 * The multi-row incident writes against PostgreSQL: a sequence written in one call must have the
 * outcome, and leave the rows, that the same writes one at a time (each in its own transaction) do.
 */
describe('Incident writes in multi-row statements (e2e)', () => {
  let t: TestApp;
  let orm: MikroORM;
  const tokenId = randomUUID();

  beforeAll(async () => {
    t = await TestApp.start();
    orm = t.app.get(MikroORM);
  });
  afterAll(async () => {
    await t.close();
  });

  const at = (n: number) => new Date(Date.UTC(2026, 10, 22, 12, 0, n));
  const write = (kind: 'trigger' | 'resolve', filterId: string, mappedValue: string | null, n: number, title = `title ${n}`): IncidentWrite =>
    kind === 'trigger'
      ? { kind, tokenId, filterId, title, description: `description ${n}`, mappedValue, at: at(n) }
      : { kind, filterId, mappedValue: mappedValue!, at: at(n) };

  const together = (writes: IncidentWrite[]) => inTransaction(orm, (em) => applyIncidentWrites(em, writes));
  const oneByOne = async (writes: IncidentWrite[]) => {
    const results: IncidentWriteResult[] = [];
    for (const w of writes) results.push(...(await together([w])));
    return results;
  };

  /** The rows of some filters, with incident ids replaced by the index of the write whose result named them first. */
  async function state(filterIds: string[], results: IncidentWriteResult[]) {
    const names = new Map<string, number>();
    results.forEach((r, i) => r.id && !names.has(r.id) && names.set(r.id, i));
    const outcome = results.map((r) => (r.kind === 'trigger' ? { ...r, id: names.get(r.id) } : { ...r, id: r.id === null ? null : names.get(r.id) }));
    const { rows } = await t.db.query(
      `select id, filter_id, title, description, mapped_value, status, trigger_count, created_at, last_triggered_at, resolved_at, resolved_by
       from incidents where filter_id = any($1::uuid[]) order by created_at, title`,
      [filterIds],
    );
    const filterName = (id: string) => filterIds.indexOf(id);
    return { outcome, rows: rows.map((row) => ({ ...row, id: names.get(row.id) ?? 'unnamed', filter_id: filterName(row.filter_id) })) };
  }

  /** Runs `build(filters)` once together and once one by one, on fresh filter ids each, and compares. */
  async function compare(build: (filters: string[]) => IncidentWrite[], filterCount = 2) {
    const a = Array.from({ length: filterCount }, () => randomUUID());
    const b = Array.from({ length: filterCount }, () => randomUUID());
    const batched = await state(a, await together(build(a)));
    const sequential = await state(b, await oneByOne(build(b)));
    expect(batched).toEqual(sequential);
    return batched;
  }

  it('opens, deduplicates and resolves as one-by-one writes do, in order', async () => {
    const { outcome, rows } = await compare(([f, g]) => [
      write('trigger', f, 'a', 1),
      write('trigger', f, 'a', 2, 'a later title is not kept'),
      write('trigger', g, 'a', 3),
      write('resolve', f, 'a', 4),
      write('resolve', f, 'a', 5),
      write('trigger', f, 'a', 6),
      write('trigger', f, null, 7),
      write('trigger', f, null, 8),
      write('resolve', g, 'missing', 9),
    ]);
    expect(outcome).toEqual([
      { kind: 'trigger', id: 0, created: true, triggerCount: 1 },
      { kind: 'trigger', id: 0, created: false, triggerCount: 2 },
      { kind: 'trigger', id: 2, created: true, triggerCount: 1 },
      { kind: 'resolve', id: 0 },
      { kind: 'resolve', id: null },
      { kind: 'trigger', id: 5, created: true, triggerCount: 1 },
      { kind: 'trigger', id: 6, created: true, triggerCount: 1 },
      { kind: 'trigger', id: 7, created: true, triggerCount: 1 },
      { kind: 'resolve', id: null },
    ]);
    expect(rows.find((r) => r.id === 0)).toMatchObject({ status: 'resolved', trigger_count: 2, title: 'title 1', created_at: at(1), last_triggered_at: at(2), resolved_at: at(4), resolved_by: 'filter' });
  });

  it('adds to an incident opened before', async () => {
    await compare(([f]) => [write('trigger', f, 'x', 1)]);
    const filter = randomUUID();
    const [first] = await together([write('trigger', filter, 'x', 1)]);
    const results = await together([write('trigger', filter, 'x', 2), write('trigger', filter, 'x', 3)]);
    expect(results).toEqual([
      { kind: 'trigger', id: first.id, created: false, triggerCount: 2 },
      { kind: 'trigger', id: first.id, created: false, triggerCount: 3 },
    ]);
  });

  it.each([
    ['quotes, braces and commas', `a "b" {c}, 'd' \\e`],
    ['NULL as text', 'NULL'],
    ['an empty string', ''],
    ['a NUL character (stored as U+FFFD)', 'a\u0000b'],
    ['a lone surrogate', 'a\ud800b'],
    ['emoji and non-ASCII', '🚨 Ausfall – ошибка'],
    ['a long value', 'v'.repeat(100_000)],
  ])('keeps mapped values, titles and descriptions with %s', async (_, text) => {
    const { rows } = await compare(([f]) => [
      { kind: 'trigger', tokenId, filterId: f, title: text.slice(0, 1000), description: text, mappedValue: text, at: at(1) },
      { kind: 'trigger', tokenId, filterId: f, title: 'other', description: 'other', mappedValue: text, at: at(2) },
      { kind: 'trigger', tokenId, filterId: f, title: text.slice(0, 1000), description: text, mappedValue: null, at: at(3) },
    ]);
    const stored = text.replaceAll('\u0000', '\uFFFD').replaceAll('\ud800', '\uFFFD');
    expect(rows[0]).toMatchObject({ title: stored.slice(0, 1000), description: stored, mapped_value: stored, trigger_count: 2 });
    expect(rows[1]).toMatchObject({ description: stored, mapped_value: null });
  });

  it('agrees with one-by-one writes on any sequence', async () => {
    const kinds = fc.array(fc.tuple(fc.constantFrom('trigger', 'resolve') as fc.Arbitrary<'trigger' | 'resolve'>, fc.nat(1), fc.constantFrom('a', 'b', null)), { maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(kinds, async (steps) => {
        await compare((filters) => steps.map(([kind, f, value], n) => write(kind, filters[f], kind === 'resolve' ? (value ?? 'a') : value, n)));
      }),
      { numRuns: 40 },
    );
  });

  it('runs concurrent batches over the same keys without losing a count', async () => {
    const filter = randomUUID();
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    // Each batch touches every key, in its own shuffled order.
    const batches = Array.from({ length: 16 }, (_, b) => [...keys].sort(() => (b % 2 ? 1 : -1) * (Math.random() - 0.3)).map((k, n) => write('trigger', filter, k, n)));
    await Promise.all(batches.map((batch) => together(batch)));
    const { rows } = await t.db.query(`select mapped_value, trigger_count from incidents where filter_id = $1 and status = 'open'`, [filter]);
    expect(rows).toHaveLength(20);
    expect(rows.every((r) => r.trigger_count === 16)).toBe(true);
  });
});
