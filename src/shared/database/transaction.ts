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

/**
 * Runs `work` in the caller's transaction when there is one (it commits with the caller's), else in
 * a new transaction that commits when `work` returns (and rolls back when it throws).
 */
export function inTransaction<T>(orm: MikroORM, work: (em: EntityManager) => Promise<T>): Promise<T> {
  const outer = transactionOrUndefined(orm);
  return outer ? work(outer) : orm.em.fork().transactional(work);
}

/**
 * Calls `fn` once the transaction of `em` has committed (for a savepoint: once it is released);
 * never when it rolls back. `fn` runs inside the commit's bookkeeping: it must only schedule work
 * (e.g. `setImmediate`), and what it throws is swallowed so it cannot fail a committed transaction.
 */
export function afterCommit(em: EntityManager, fn: () => void): void {
  const transaction = em.getTransactionContext();
  if (!transaction) throw new NoTransactionError('afterCommit');
  let done = false;
  em.getEventManager().registerSubscriber({
    afterTransactionCommit: (args) => {
      if (done || args.transaction !== transaction) return;
      done = true;
      try {
        fn();
      } catch {
        // scheduling only; nothing to undo
      }
    },
  });
}
