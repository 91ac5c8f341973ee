import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { fanOutTriggers, planRounds, type PlannedWrite } from './write-plan.js';

const t = (key: string | null): PlannedWrite => ({ kind: 'trigger', key });
const r = (key: string): PlannedWrite => ({ kind: 'resolve', key });

/** A round as plain data: [triggers by key, unkeyed, resolves]. */
const shape = (writes: PlannedWrite[]) => planRounds(writes).map((round) => [Object.fromEntries(round.triggers), round.unkeyed, round.resolves]);

describe(planRounds.name, () => {
  it.each<[string, PlannedWrite[], unknown[]]>([
    ['nothing', [], []],
    ['distinct starts: one round', [t('a'), t('b'), t('c')], [[{ a: [0], b: [1], c: [2] }, [], []]]],
    ['repeated starts share one row', [t('a'), t('b'), t('a')], [[{ a: [0, 2], b: [1] }, [], []]]],
    ['unkeyed triggers each their own', [t(null), t('a'), t(null)], [[{ a: [1] }, [0, 2], []]]],
    ['starts and other keys\' completions: one round', [t('a'), r('b'), t('c'), r('d')], [[{ a: [0], c: [2] }, [], [1, 3]]]],
    ['a completion after its start: a second round', [t('a'), t('b'), r('a')], [[{ a: [0], b: [1] }, [], []], [{}, [], [2]]]],
    ['a start after its completion: a second round', [r('a'), t('a')], [[{}, [], [0]], [{ a: [1] }, [], []]]],
    ['start, complete, start again: three rounds', [t('a'), r('a'), t('a')], [[{ a: [0] }, [], []], [{}, [], [1]], [{ a: [2] }, [], []]]],
    ['repeated completions stay together', [r('a'), r('a'), t('b')], [[{ b: [2] }, [], [0, 1]]]],
    ['later writes of other keys join the new round', [t('a'), r('a'), t('b'), r('c')], [[{ a: [0] }, [], []], [{ b: [2] }, [], [1, 3]]]],
  ])('%s', (_, writes, expected) => {
    expect(shape(writes)).toEqual(expected);
  });

  it('refuses a resolve without a key', () => {
    expect(() => planRounds([{ kind: 'resolve', key: null }])).toThrow('a resolve needs a key');
  });
});

describe(fanOutTriggers.name, () => {
  it.each([
    [1, { created: true, triggerCount: 1 }, [{ created: true, triggerCount: 1 }]],
    [3, { created: true, triggerCount: 3 }, [{ created: true, triggerCount: 1 }, { created: false, triggerCount: 2 }, { created: false, triggerCount: 3 }]],
    [1, { created: false, triggerCount: 5 }, [{ created: false, triggerCount: 5 }]],
    [2, { created: false, triggerCount: 7 }, [{ created: false, triggerCount: 6 }, { created: false, triggerCount: 7 }]],
  ])('%d trigger(s) and row %j', (n, row, expected) => {
    expect(fanOutTriggers(n, row)).toEqual(expected);
  });
});

// Outcomes name an incident by the index of the write that opened it.
type Outcome = { kind: 'created' | 'deduplicated'; incident: number; count: number } | { kind: 'resolved'; incident: number | null };

/** Writes applied one at a time: the behaviour the rounds must keep. */
function oneByOne(writes: PlannedWrite[], open: Map<string, { incident: number; count: number }>): Outcome[] {
  return writes.map((write, index): Outcome => {
    const current = write.key === null ? undefined : open.get(write.key);
    if (write.kind === 'resolve') {
      if (current) open.delete(write.key!);
      return { kind: 'resolved', incident: current?.incident ?? null };
    }
    if (current) return { kind: 'deduplicated', incident: current.incident, count: ++current.count };
    if (write.key !== null) open.set(write.key, { incident: index, count: 1 });
    return { kind: 'created', incident: index, count: 1 };
  });
}

/** Writes applied as the store does: per round one upsert per key, then the resolves. */
function inRounds(writes: PlannedWrite[], open: Map<string, { incident: number; count: number }>): Outcome[] {
  const outcomes: Outcome[] = new Array(writes.length);
  for (const round of planRounds(writes)) {
    for (const [key, indexes] of round.triggers) {
      const current = open.get(key);
      const row = current ? { incident: current.incident, count: current.count + indexes.length } : { incident: indexes[0], count: indexes.length };
      open.set(key, row);
      fanOutTriggers(indexes.length, { created: !current, triggerCount: row.count }).forEach((o, k) => {
        outcomes[indexes[k]] = { kind: o.created ? 'created' : 'deduplicated', incident: row.incident, count: o.triggerCount };
      });
    }
    for (const index of round.unkeyed) outcomes[index] = { kind: 'created', incident: index, count: 1 };
    for (const index of round.resolves) {
      const key = writes[index].key!;
      outcomes[index] = { kind: 'resolved', incident: open.get(key)?.incident ?? null };
      open.delete(key);
    }
  }
  return outcomes;
}

describe('rounds against one-by-one writes', () => {
  const write = fc.oneof(
    fc.constantFrom('a', 'b', 'c').map((key): PlannedWrite => ({ kind: 'trigger', key })),
    fc.constantFrom('a', 'b', 'c').map((key): PlannedWrite => ({ kind: 'resolve', key })),
    fc.constant<PlannedWrite>({ kind: 'trigger', key: null }),
  );
  it('give every write the same outcome, from any open incidents', () => {
    fc.assert(
      fc.property(fc.array(write, { maxLength: 30 }), fc.subarray(['a', 'b', 'c']), (writes, openKeys) => {
        const before = () => new Map(openKeys.map((key) => [key, { incident: -1, count: 4 }]));
        const sequential = before();
        const batched = before();
        expect(inRounds(writes, batched)).toEqual(oneByOne(writes, sequential));
        expect(batched).toEqual(sequential);
      }),
    );
  });
});
