/**
 * The incidents module's public surface: its events. Payloads carry ids and plain values. They are
 * published inside the transaction of the change, awaited: a handler may write through
 * `currentTransaction` (shared/database/transaction.ts), and its writes commit with the incident.
 */

export interface IncidentCreated {
  incidentId: string;
  tokenId: string;
  filterId: string;
  title: string;
  mappedValue: string | null;
  createdAt: string;
}

export interface IncidentDeduplicated {
  incidentId: string;
  tokenId: string;
  filterId: string;
  mappedValue: string;
  triggerCount: number;
  lastTriggeredAt: string;
}

export interface IncidentResolved {
  incidentId: string;
  tokenId: string;
  filterId: string;
  mappedValue: string | null;
  resolvedBy: 'filter' | 'admin';
  resolvedAt: string;
}

export interface IncidentsEvents {
  IncidentCreated: IncidentCreated;
  IncidentDeduplicated: IncidentDeduplicated;
  IncidentResolved: IncidentResolved;
}
