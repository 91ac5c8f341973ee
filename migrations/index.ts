import { Migration20261122000100_api_tokens } from './Migration20261122000100_api_tokens.js';
import { Migration20261122000200_filters_incidents } from './Migration20261122000200_filters_incidents.js';

/** Every migration in order; listed statically so the built app and the tests find them. */
export const migrationsList = [
  { name: Migration20261122000100_api_tokens.name, class: Migration20261122000100_api_tokens },
  { name: Migration20261122000200_filters_incidents.name, class: Migration20261122000200_filters_incidents },
];
