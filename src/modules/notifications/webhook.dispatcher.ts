import { Inject, Injectable, Logger, type BeforeApplicationShutdown } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { isDatabaseUnavailable } from '../../shared/errors/database-unavailable.js';
import { EventBus } from '../../shared/events/event-bus.js';
import { claimDueDeliveries, pruneFinishedDeliveries, recordAttempt, type AttemptOutcome, type ClaimedDelivery } from './delivery.store.js';
import { deliveryHeaders } from './domain/webhook-message.js';
import { isDelivered, nextAttemptAt, type RetryPolicy } from './domain/retry-schedule.js';
import { postWebhook } from './webhook.sender.js';

/** How often the job looks for due deliveries (jobs/webhook-dispatch.job.ts). */
export const DISPATCH_INTERVAL_MS = 1_000;
/** Deliveries claimed per query. */
export const DISPATCH_BATCH = 50;
/** Attempts in flight at once per instance. */
export const MAX_IN_FLIGHT = 100;
/** A claim lasts the attempt's timeout plus this; a crashed instance's claims lapse after it. */
export const CLAIM_MARGIN_MS = 60_000;
/** Delivered and failed deliveries are deleted this long after they were created. */
export const DELIVERY_RETENTION_MS = 30 * 86_400_000;

/**
 * Sends due outbox rows. Runs every second (the job), right after a commit that wrote deliveries
 * (`kick`), and when a retry falls due sooner than the next tick. One run at a time per instance;
 * attempts go on in the background while the next rows are claimed. On shutdown nothing new is
 * claimed or sent, attempts in flight are cut short and put back as due at once.
 */
@Injectable()
export class WebhookDispatcher implements BeforeApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly policy: RetryPolicy;
  private readonly shutdown = new AbortController();
  private closing = false;
  private run: Promise<void> | null = null;
  private runAgain = false;
  private kicked: NodeJS.Immediate | null = null;
  private wake: { timer: NodeJS.Timeout; at: number } | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private databaseDown = false;

  constructor(
    private readonly orm: MikroORM,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.policy = { baseMs: config.webhookRetryBaseMs, maxAgeMs: config.webhookMaxAgeMs };
  }

  /** Asks for a run soon, without waiting for it (called after a commit that wrote deliveries). */
  kick(): void {
    if (this.closing || this.kicked) return;
    this.kicked = setImmediate(() => {
      this.kicked = null;
      void this.dispatchDue();
    });
  }

  /** Claims and starts every due delivery; never throws. A call during a run asks for one more. */
  dispatchDue(): Promise<void> {
    if (this.closing) return Promise.resolve();
    if (this.run) {
      this.runAgain = true;
      return this.run;
    }
    this.run = (async () => {
      try {
        do {
          this.runAgain = false;
          await this.claimAndStart();
        } while (this.runAgain && !this.closing);
      } finally {
        this.run = null;
      }
    })();
    return this.run;
  }

  private async claimAndStart(): Promise<void> {
    while (!this.closing) {
      const room = Math.min(DISPATCH_BATCH, MAX_IN_FLIGHT - this.inFlight.size);
      if (room <= 0) return; // an attempt that ends asks for another run
      const now = new Date();
      let claimed: ClaimedDelivery[];
      try {
        claimed = await claimDueDeliveries(this.orm.em.fork(), now, new Date(now.getTime() + this.config.webhookTimeoutMs + CLAIM_MARGIN_MS), room);
        this.databaseReachable();
      } catch (error) {
        this.databaseFailed('claim due webhook deliveries', error);
        return;
      }
      for (const delivery of claimed) this.track(this.attempt(delivery));
      if (claimed.length < room) return;
    }
  }

  private track(attempt: Promise<void>): void {
    const wasFull = this.inFlight.size + 1 >= MAX_IN_FLIGHT;
    this.inFlight.add(attempt);
    void attempt.finally(() => {
      this.inFlight.delete(attempt);
      if (wasFull) this.kick();
    });
  }

  /** One attempt of one claimed delivery, and its outcome recorded; never throws. */
  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = deliveryHeaders({ deliveryId: delivery.id, event: delivery.event, secret: delivery.secret, body: delivery.body, timestamp });
    // Claimed as the service began to close: nothing is sent, the row is put back as due.
    const result = this.closing
      ? { statusCode: null, error: 'interrupted: the service was shutting down', interrupted: true }
      : await postWebhook(delivery.url, delivery.body, headers, this.config.webhookTimeoutMs, this.shutdown.signal);
    const now = new Date();
    let outcome: AttemptOutcome;
    if (isDelivered(result.statusCode)) {
      outcome = { kind: 'delivered', statusCode: result.statusCode as number, at: now };
    } else if (result.interrupted) {
      // Not the receiver's fault: due again at once, for whichever instance runs next.
      outcome = { kind: 'retry', statusCode: null, error: result.error ?? 'interrupted', nextAttemptAt: now };
    } else {
      const next = nextAttemptAt({ failedAttempts: delivery.attempts, createdAt: delivery.createdAt, now, policy: this.policy });
      const error = result.error ?? `answered HTTP ${result.statusCode}`;
      outcome = next ? { kind: 'retry', statusCode: result.statusCode, error, nextAttemptAt: next } : { kind: 'failed', statusCode: result.statusCode, error };
    }
    try {
      const recorded = await recordAttempt(this.orm.em.fork(), delivery, outcome);
      if (!recorded) return; // the subscription was deleted, or the claim lapsed and another attempt took over
      await this.events.publish('WebhookDeliveryAttempted', {
        deliveryId: delivery.id,
        subscriptionId: delivery.subscriptionId,
        event: delivery.event,
        result: outcome.kind,
        statusCode: outcome.statusCode,
      });
    } catch (error) {
      // The claim lapses and the delivery is sent again: at least once, never lost.
      this.databaseFailed(`record the attempt of webhook delivery ${delivery.id}`, error);
      return;
    }
    if (outcome.kind === 'failed') {
      this.logger.warn(`webhook delivery ${delivery.id} (${delivery.event}) to subscription ${delivery.subscriptionId} failed after ${delivery.attempts} attempts: ${outcome.error}`);
    } else if (outcome.kind === 'retry') {
      this.logger.debug(`webhook delivery ${delivery.id} attempt ${delivery.attempts} failed (${outcome.error}); next at ${outcome.nextAttemptAt.toISOString()}`);
      if (!result.interrupted) this.wakeAt(outcome.nextAttemptAt.getTime());
    }
  }

  /** A retry due before the job's next tick gets a timer of its own (the earliest one is kept). */
  private wakeAt(at: number): void {
    const delay = at - Date.now();
    if (this.closing || delay >= DISPATCH_INTERVAL_MS || (this.wake && this.wake.at <= at)) return;
    if (this.wake) clearTimeout(this.wake.timer);
    const timer = setTimeout(() => {
      this.wake = null;
      void this.dispatchDue();
    }, Math.max(0, delay));
    timer.unref();
    this.wake = { timer, at };
  }

  /** Deletes delivered and failed deliveries older than DELIVERY_RETENTION_MS; never throws. */
  async pruneFinished(now = new Date()): Promise<number> {
    if (this.closing) return 0;
    try {
      return await pruneFinishedDeliveries(this.orm.em.fork(), new Date(now.getTime() - DELIVERY_RETENTION_MS));
    } catch (error) {
      this.databaseFailed('delete old webhook deliveries', error);
      return 0;
    }
  }

  private databaseReachable(): void {
    if (!this.databaseDown) return;
    this.databaseDown = false;
    this.logger.log('webhook dispatch resumed: the database answers again');
  }

  /** An unreachable database is reported once per outage, anything else every time. */
  private databaseFailed(what: string, error: unknown): void {
    if (isDatabaseUnavailable(error)) {
      if (!this.databaseDown) this.logger.warn(`webhook dispatch paused: cannot ${what}, the database cannot be reached`);
      this.databaseDown = true;
      return;
    }
    this.logger.error(`cannot ${what}: ${error instanceof Error ? error.message : String(error)}`);
  }

  /**
   * Before the database closes (onApplicationShutdown): claim and send nothing more, cut attempts
   * in flight short (they are recorded as due again) and wait for the run and them to end.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.kicked) clearImmediate(this.kicked);
    if (this.wake) clearTimeout(this.wake.timer);
    this.kicked = null;
    this.wake = null;
    this.shutdown.abort();
    await this.run;
    await Promise.allSettled([...this.inFlight]);
  }
}
