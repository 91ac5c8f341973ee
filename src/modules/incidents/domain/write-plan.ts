/**
 * How a sequence of incident writes (triggers and resolves, in arrival order) is carried out as
 * few multi-row statements: in rounds, each one statement for its triggers and one for its
 * resolves, with the same outcome as running the writes one by one.
 *
 * A write's `key` names the open incident it can touch (filter and hash of the mapped value, as
 * the unique index does), or is null for a trigger without a mapped value, which always opens an
 * incident of its own. Within a round a key has only triggers or only resolves, so the two
 * statements of a round cannot affect each other's rows and their order does not matter. A write
 * whose key the round already has with the other kind starts a new round: a completion after its
 * start resolves the incident the start opened.
 */
export interface PlannedWrite {
  kind: 'trigger' | 'resolve';
  key: string | null;
}

export interface WriteRound {
  /** Triggers by key, each list in arrival order: one upserted row serves them all. */
  triggers: Map<string, number[]>;
  /** Triggers without a key: a row each. */
  unkeyed: number[];
  /** Resolves in arrival order. */
  resolves: number[];
}

const emptyRound = (): WriteRound => ({ triggers: new Map(), unkeyed: [], resolves: [] });

export function planRounds(writes: readonly PlannedWrite[]): WriteRound[] {
  const rounds: WriteRound[] = [];
  let round = emptyRound();
  let resolveKeys = new Set<string>();
  const push = () => {
    rounds.push(round);
    round = emptyRound();
    resolveKeys = new Set();
  };
  writes.forEach((write, index) => {
    if (write.key === null) {
      if (write.kind === 'resolve') throw new Error('a resolve needs a key');
      round.unkeyed.push(index);
    } else if (write.kind === 'trigger') {
      if (resolveKeys.has(write.key)) push();
      const same = round.triggers.get(write.key);
      if (same) same.push(index);
      else round.triggers.set(write.key, [index]);
    } else {
      if (round.triggers.has(write.key)) push();
      resolveKeys.add(write.key);
      round.resolves.push(index);
    }
  });
  if (round.triggers.size + round.unkeyed.length + round.resolves.length > 0) rounds.push(round);
  return rounds;
}

export interface TriggerOutcome {
  created: boolean;
  triggerCount: number;
}

/**
 * What each of `n` triggers of one key answers, given the row their single upsert returned (which
 * counted all n): the first one created it, or each one in turn raised the count of an open one.
 */
export function fanOutTriggers(n: number, row: TriggerOutcome): TriggerOutcome[] {
  const first = row.triggerCount - n + 1;
  return Array.from({ length: n }, (_, k) => ({ created: row.created && k === 0, triggerCount: first + k }));
}
