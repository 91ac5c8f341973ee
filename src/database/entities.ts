import { ApiLogEntry } from '../modules/api-log/domain/api-log-entry.entity.js';
import { Filter } from '../modules/filters/domain/filter.entity.js';
import { Incident } from '../modules/incidents/domain/incident.entity.js';
import { WebhookDelivery } from '../modules/notifications/domain/webhook-delivery.entity.js';
import { WebhookSubscription } from '../modules/notifications/domain/webhook-subscription.entity.js';
import { ApiToken } from '../modules/tokens/domain/api-token.entity.js';

/** Every entity the ORM maps. */
export const entities = [ApiToken, Filter, Incident, ApiLogEntry, WebhookSubscription, WebhookDelivery];
