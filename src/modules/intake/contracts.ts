/** The intake module's public surface: the event it publishes and the outcome it reports. */

/** A JSON object as received: one payload. */
export type JsonObject = { [key: string]: unknown };

/** What one filter did with one payload. */
export type FilterAction = 'created' | 'deduplicated' | 'resolved' | 'no-open-incident' | 'unmatched';

export interface FilterOutcome {
  filterId: string;
  filterName: string | null;
  action: FilterAction;
  /** The incident created, deduplicated or resolved; null for unmatched and no-open-incident. */
  incidentId: string | null;
}

/** The outcome of one payload (one element of the body), filter by filter. */
export interface PayloadOutcome {
  index: number;
  filters: FilterOutcome[];
}

/** An authenticated intake call carried JSON payloads; published before answering 202. */
export interface PayloadReceived {
  tokenId: string;
  /** `/v1/trace` or `/v1/alert`. */
  path: string;
  receivedAt: Date;
  payloads: JsonObject[];
}

export interface IntakeEvents {
  PayloadReceived: PayloadReceived;
}

export interface IntakeReplies {
  /** Answered once every effect is committed. */
  PayloadReceived: PayloadOutcome[];
}
