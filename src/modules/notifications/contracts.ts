/**
 * The notifications module's public surface. It listens to IncidentCreated and IncidentResolved,
 * and reports each delivery attempt (for metrics).
 */

/** One attempt to deliver a webhook ended: delivered, to be retried, or failed for good. */
export interface WebhookDeliveryAttempted {
  deliveryId: string;
  subscriptionId: string;
  event: string;
  result: 'delivered' | 'retry' | 'failed';
  statusCode: number | null;
}

export interface NotificationsEvents {
  WebhookDeliveryAttempted: WebhookDeliveryAttempted;
}

export { WEBHOOK_EVENTS, type DeliveryBody, type WebhookEventName } from './domain/webhook-message.js';
export { NotificationsModule } from './notifications.module.js';
