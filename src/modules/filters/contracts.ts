/** The filters module's public surface: its events and what it hands the incidents module. */
import type { FilterOutcome, PayloadOutcome } from '../intake/contracts.js';

/** What one filter decided for one payload; the incidents module carries it out. */
export type FilterDecision =
  | { filterId: string; filterName: string | null; action: 'trigger'; title: string; description: string; mappedValue: string | null }
  | { filterId: string; filterName: string | null; action: 'resolve'; mappedValue: string | null }
  | { filterId: string; filterName: string | null; action: 'none' };

/** The token's filters were evaluated against a call's payloads (in order). */
export interface PayloadEvaluated {
  tokenId: string;
  receivedAt: Date;
  /** One entry per payload, one decision per filter of the token. */
  decisions: FilterDecision[][];
}

export interface FilterChanged {
  filterId: string;
  tokenId: string;
}

export interface FiltersEvents {
  PayloadEvaluated: PayloadEvaluated;
  FilterCreated: FilterChanged;
  FilterUpdated: FilterChanged;
  FilterDeleted: FilterChanged;
}

export interface FiltersReplies {
  /** Answered by the incidents module once the decisions are committed. */
  PayloadEvaluated: PayloadOutcome[];
}

export { FiltersFacade } from './filters.facade.js';

export type { FilterOutcome };
