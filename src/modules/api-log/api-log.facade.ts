import type { JsonObject } from '../intake/contracts.js';

/** A logged call whose body was JSON, with its payloads (an array body: one per element). */
export interface LoggedPayloads {
  logEntryId: string;
  receivedAt: Date;
  payloads: JsonObject[];
}

export abstract class ApiLogFacade {
  /** The token's newest logged calls with a JSON body, newest first, at most `limit`. */
  abstract recentPayloads(tokenId: string, limit: number): Promise<LoggedPayloads[]>;
}
