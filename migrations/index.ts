import { Migration20261122000100_api_tokens } from './Migration20261122000100_api_tokens.js';
import { Migration20261122000200_filters_incidents } from './Migration20261122000200_filters_incidents.js';
import { Migration20261122000300_api_log } from './Migration20261122000300_api_log.js';
import { Migration20261122000400_idempotency_keys } from './Migration20261122000400_idempotency_keys.js';
import { Migration20261122000500_webhooks } from './Migration20261122000500_webhooks.js';

/** Every migration in order; listed statically so the built app and the tests find them. */
export const migrationsList = [
  { name: Migration20261122000100_api_tokens.name, class: Migration20261122000100_api_tokens },
  { name: Migration20261122000200_filters_incidents.name, class: Migration20261122000200_filters_incidents },
  { name: Migration20261122000300_api_log.name, class: Migration20261122000300_api_log },
  { name: Migration20261122000400_idempotency_keys.name, class: Migration20261122000400_idempotency_keys },
  { name: Migration20261122000500_webhooks.name, class: Migration20261122000500_webhooks },
];
