import { AsyncLocalStorage } from 'node:async_hooks';
import { TransactionContext } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';

/**
 * The transaction helpers modules use, so that they do not reach into MikroORM's transaction
 * context themselves. The rule they support: a use case that changes data publishes its events
 * inside its transaction, awaited, and a handler that must write something that survives only if
 * the change commits (an outbox row) writes it through `currentTransaction`.
 */

/** No transaction is open where one is required (a handler of an event published outside one). */
export class NoTransactionError extends Error {
  constructor(what: string) {
    super(`${what} must run inside a transaction (publish the event from within the use case's transaction)`);
    this.name = 'NoTransactionError';
  }
}

/** The EntityManager of the transaction this code runs in, or undefined outside one. */
export function transactionOrUndefined(orm: MikroORM): EntityManager | undefined {
  const em = TransactionContext.getEntityManager(orm.em.name) as EntityManager | undefined;
  return em?.isInTransaction() ? em : undefined;
}

/** The EntityManager of the transaction this code runs in; throws when there is none. */
export function currentTransaction(orm: MikroORM, what = 'this write'): EntityManager {
  const em = transactionOrUndefined(orm);
  if (!em) throw new NoTransactionError(what);
  return em;
}

/** Callbacks to run once the transaction that `inTransaction` opened has committed. */
const afterCommitCallbacks = new AsyncLocalStorage<Array<() => void>>();

/**
 * Runs `work` in the caller's transaction when there is one (it commits with the caller's), else in
 * a new transaction that commits when `work` returns (and rolls back when it throws). Every
 * transaction that publishes events should be opened here, so that `afterCommit` works in it.
 */
export async function inTransaction<T>(orm: MikroORM, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const outer = transactionOrUndefined(orm);
  if (outer) return work(outer);
  const callbacks: Array<() => void> = [];
  const result = await afterCommitCallbacks.run(callbacks, () => orm.em.fork().transactional(work));
  for (const fn of callbacks) {
    try {
      fn();
    } catch {
      // scheduling only; nothing to undo
    }
  }
  return result;
}

/**
 * Calls `fn` once the transaction opened by `inTransaction` (around this code) has committed;
 * never when it rolls back. `fn` should only schedule work (e.g. `setImmediate`); what it throws
 * is swallowed so it cannot fail a committed transaction.
 */
export function afterCommit(fn: () => void): void {
  const callbacks = afterCommitCallbacks.getStore();
  if (!callbacks) throw new NoTransactionError('afterCommit');
  callbacks.push(fn);
}
