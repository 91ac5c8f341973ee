/**
 * The notifications module's public surface. It only listens (IncidentCreated, IncidentResolved)
 * and publishes no events of its own; other modules need nothing from it.
 */

export { WEBHOOK_EVENTS, type DeliveryBody, type WebhookEventName } from './domain/webhook-message.js';
export { NotificationsModule } from './notifications.module.js';
