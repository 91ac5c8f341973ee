/** The API log module's public surface: the logged payloads, for backtesting filters. */

export { ApiLogFacade, type LoggedPayloads } from './api-log.facade.js';
export { ApiLogModule } from './api-log.module.js';

/** A call was stored in the API log. */
export interface ApiLogEntryWritten {
  entryId: string;
  tokenId: string;
  statusCode: number;
}

export interface ApiLogEvents {
  ApiLogEntryWritten: ApiLogEntryWritten;
}
