import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';
export const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'failed'];

/**
 * One event for one subscription: the outbox row written in the transaction of the incident
 * change, and the delivery log's entry. Written by `delivery.store.ts` (plain SQL); mapped here
 * for reading.
 */
@Entity({ tableName: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryKey({ type: 'uuid' })
  id!: string;

  @Property({ type: 'uuid' })
  subscriptionId!: string;

  @Property({ length: 64 })
  event!: string;

  /** The exact JSON sent (and signed) on every attempt. */
  @Property({ type: 'text', lazy: true })
  body!: string;

  @Property({ length: 16 })
  status!: DeliveryStatus;

  @Property({ type: 'integer' })
  attempts!: number;

  /** When the next attempt is due (while an attempt is in flight: when its claim lapses); null once done. */
  @Property({ type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  lastAttemptAt!: Date | null;

  @Property({ type: 'smallint', nullable: true })
  lastStatusCode!: number | null;

  @Property({ length: 500, nullable: true })
  lastError!: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  deliveredAt!: Date | null;
}
