import type { ApiLogEvents } from '../../modules/api-log/contracts.js';
import type { FiltersEvents, FiltersReplies } from '../../modules/filters/contracts.js';
import type { IncidentsEvents } from '../../modules/incidents/contracts.js';
import type { IntakeEvents, IntakeReplies } from '../../modules/intake/contracts.js';
import type { TemplatesEvents } from '../../modules/templates/contracts.js';
import type { TokensEvents } from '../../modules/tokens/contracts.js';
import type { NotificationsEvents } from '../../modules/notifications/contracts.js';

/** Every domain event by name, built from the modules' contracts. */
export interface DomainEvents extends TokensEvents, FiltersEvents, TemplatesEvents, IntakeEvents, IncidentsEvents, ApiLogEvents, NotificationsEvents {}

/** Request-style events: what their one handler answers to the publisher. */
export interface DomainEventReplies extends IntakeReplies, FiltersReplies {}

export type DomainEventName = keyof DomainEvents;
