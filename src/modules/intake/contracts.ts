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

/** How the body of a call is kept: the JSON text as received, other text, or nothing readable. */
export type BodyKind = 'json' | 'text' | 'none';

/**
 * An intake call with a valid token was answered, accepted or rejected. Published, awaited, before
 * the answer is sent; carries no credentials.
 */
export interface IntakeCallCompleted {
  tokenId: string;
  /** The token's debug window was open when the call arrived. */
  debug: boolean;
  receivedAt: Date;
  method: string;
  path: string;
  statusCode: number;
  /**
   * Request headers without Authorization, Cookie and Proxy-Authorization; only for a token in
   * debug mode (the API log is their only reader), empty otherwise.
   */
  headers: Record<string, string>;
  bodyKind: BodyKind;
  /**
   * The decompressed body text (json, text), or null (none); only for a token in debug mode (the
   * API log is its only reader): `'none'` and null otherwise, so a large body's whole text is never made.
   */
  body: string | null;
  /** Per payload, per filter, for an accepted call. */
  outcome: PayloadOutcome[] | null;
  /** The error answered for a rejected call. */
  error: { code: string | null; message: string } | null;
}

export interface IntakeEvents {
  PayloadReceived: PayloadReceived;
  IntakeCallCompleted: IntakeCallCompleted;
}

export interface IntakeReplies {
  /** Answered once every effect is committed. */
  PayloadReceived: PayloadOutcome[];
}

