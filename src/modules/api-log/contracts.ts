/** The API log module's public surface: the logged payloads, for backtesting filters. */

export { ApiLogFacade, type LoggedPayloads } from './api-log.facade.js';
export { ApiLogModule } from './api-log.module.js';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ApiLogEvents {}
