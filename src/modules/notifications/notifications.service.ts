import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { TtlCache } from '../../shared/cache/ttl-cache.js';
import { afterCommit, currentTransaction, transactionOrUndefined } from '../../shared/database/transaction.js';
import { OnDomainEvent } from '../../shared/events/event-bus.js';
import { decodeCursor, olderThan, PAGE_LIMIT_DEFAULT, toPage, type Page } from '../../shared/http/pagination.js';
import { isUuid } from '../../shared/ids.js';
import type { IncidentCreated, IncidentResolved } from '../incidents/contracts.js';
import { insertDeliveries, type NewDelivery } from './delivery.store.js';
import { WebhookDelivery } from './domain/webhook-delivery.entity.js';
import { deliveryBody, generateWebhookSecret, type WebhookEventName } from './domain/webhook-message.js';
import { WebhookNotFoundError } from './domain/notifications.errors.js';
import { WebhookSubscription } from './domain/webhook-subscription.entity.js';
import {
  toWebhookDeliveryDto,
  toWebhookDto,
  type CreatedWebhookDto,
  type CreateWebhookDto,
  type ListDeliveriesQueryDto,
  type UpdateWebhookDto,
  type WebhookDeliveryDto,
  type WebhookDto,
} from './http/dto/webhook.dto.js';
import { WebhookDispatcher } from './webhook.dispatcher.js';

/** How long the subscriptions are kept in memory for the incident events (see targetsOf). */
export const SUBSCRIPTIONS_CACHE_TTL_MS = 2_000;

interface Target {
  id: string;
  events: readonly string[];
}

/**
 * Outbound webhooks: admins subscribe URLs to incident events; each event becomes one outbox row
 * per matching subscription, written in the transaction of the incident change and sent after the
 * commit by the dispatcher (with retries). The module only listens to the incidents' events.
 */
@Injectable()
export class NotificationsService {
  constructor(
    private readonly orm: MikroORM,
    private readonly dispatcher: WebhookDispatcher,
  ) {}

  /** Every subscription (id and events), under one key: the hot path asks for no more. */
  private readonly targets = new TtlCache<'all', Target[]>(SUBSCRIPTIONS_CACHE_TTL_MS);

  @OnDomainEvent('IncidentCreated')
  async onIncidentCreated(event: IncidentCreated): Promise<void> {
    await this.enqueue('IncidentCreated', event.createdAt, event);
  }

  @OnDomainEvent('IncidentResolved')
  async onIncidentResolved(event: IncidentResolved): Promise<void> {
    await this.enqueue('IncidentResolved', event.resolvedAt, event);
  }

  /**
   * Writes one pending delivery per subscription that wants the event, in the transaction the event
   * is published in (so it exists exactly when the incident change does), and has the dispatcher
   * run once that transaction commits. With no subscription it touches nothing.
   */
  private async enqueue(event: WebhookEventName, occurredAt: string, data: IncidentCreated | IncidentResolved): Promise<void> {
    const targets = (await this.targetsOf()).filter((t) => t.events.includes(event));
    if (targets.length === 0) return;
    const em = currentTransaction(this.orm, `the ${event} webhook deliveries`);
    const inserted = await insertDeliveries(em, event, rowsFor(targets, event, occurredAt, data), new Date());
    if (inserted > 0) afterCommit(() => this.dispatcher.kick());
  }

  /**
   * The subscriptions, cached for SUBSCRIPTIONS_CACHE_TTL_MS: a change made here evicts them at
   * once; one made through another instance is seen within that time. Read on the connection of
   * the transaction the event runs in: a second connection per transaction could exhaust the pool
   * under load (every transaction holding one, waiting for another).
   */
  private async targetsOf(): Promise<Target[]> {
    return this.targets.getOrLoad('all', async () => {
      const em = transactionOrUndefined(this.orm) ?? this.orm.em.fork();
      const rows = await em.execute<Array<{ id: string; events: string[] }>>('select id, events from webhook_subscriptions');
      return rows.map((row) => ({ id: row.id, events: row.events }));
    });
  }

  async create(input: CreateWebhookDto): Promise<CreatedWebhookDto> {
    const secret = input.secret ?? generateWebhookSecret();
    const subscription = new WebhookSubscription({ url: input.url, events: input.events, secret, name: input.name ?? null }, new Date());
    await this.orm.em.fork().persist(subscription).flush();
    this.targets.delete('all');
    return { ...toWebhookDto(subscription), secret };
  }

  async list(query: { limit?: number; cursor?: string }): Promise<Page<WebhookDto>> {
    const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
    const cursor = decodeCursor(query.cursor);
    const rows = await this.orm.em.fork().find(WebhookSubscription, olderThan('createdAt', cursor), { orderBy: { createdAt: 'desc', id: 'desc' }, limit: limit + 1 });
    return toPage(rows, limit, (s) => s.createdAt, toWebhookDto);
  }

  async get(id: string): Promise<WebhookDto> {
    return toWebhookDto(await this.find(this.orm.em.fork(), id));
  }

  async update(id: string, input: UpdateWebhookDto): Promise<WebhookDto> {
    const em = this.orm.em.fork();
    const subscription = await this.find(em, id);
    subscription.edit(input, new Date());
    await em.flush();
    this.targets.delete('all');
    return toWebhookDto(subscription);
  }

  /** Deletes the subscription with its delivery log; pending deliveries are not sent. */
  async remove(id: string): Promise<void> {
    const em = this.orm.em.fork();
    const subscription = await this.find(em, id);
    await em.remove(subscription).flush();
    this.targets.delete('all');
  }

  /** The subscription's deliveries, newest first. */
  async deliveries(id: string, query: ListDeliveriesQueryDto): Promise<Page<WebhookDeliveryDto>> {
    const em = this.orm.em.fork();
    await this.find(em, id);
    const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
    const cursor = decodeCursor(query.cursor);
    const where = { subscriptionId: id, ...(query.status ? { status: query.status } : {}), ...olderThan('createdAt', cursor) };
    const rows = await em.find(WebhookDelivery, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: limit + 1 });
    return toPage(rows, limit, (d) => d.createdAt, toWebhookDeliveryDto);
  }

  private async find(em: MikroORM['em'], id: string): Promise<WebhookSubscription> {
    const subscription = isUuid(id) ? await em.findOne(WebhookSubscription, { id }) : null;
    if (!subscription) throw new WebhookNotFoundError(id);
    return subscription;
  }
}

/** One delivery per subscription, each with its own id, inside the body it will send. */
function rowsFor(targets: Target[], event: WebhookEventName, occurredAt: string, data: unknown): NewDelivery[] {
  return targets.map((target) => {
    const id = randomUUID();
    return { id, subscriptionId: target.id, body: deliveryBody({ id, event, occurredAt, data }) };
  });
}
