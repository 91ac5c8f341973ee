import type { JsonObject } from '../../intake/contracts.js';
import { evaluateFilter, type FilterRule } from './filter-matcher.js';

export interface LoggedCall {
  logEntryId: string;
  receivedAt: Date;
  payloads: JsonObject[];
}

export interface BacktestItem {
  logEntryId: string;
  receivedAt: string;
  payloadIndex: number;
  action: 'trigger' | 'resolve' | 'none';
  title: string | null;
  mappedValue: string | null;
  reason: string | null;
}

export interface BacktestResult {
  items: BacktestItem[];
  totals: { trigger: number; resolve: number; none: number };
}

/** Replays logged payloads through a filter, exactly as the intake would evaluate them. Pure. */
export function backtest(rule: FilterRule, calls: LoggedCall[]): BacktestResult {
  const items: BacktestItem[] = [];
  const totals = { trigger: 0, resolve: 0, none: 0 };
  for (const call of calls) {
    call.payloads.forEach((payload, payloadIndex) => {
      const evaluation = evaluateFilter(rule, payload);
      totals[evaluation.action] += 1;
      items.push({
        logEntryId: call.logEntryId,
        receivedAt: call.receivedAt.toISOString(),
        payloadIndex,
        action: evaluation.action,
        title: evaluation.action === 'trigger' ? evaluation.trigger.title : null,
        mappedValue: evaluation.action === 'resolve' ? evaluation.resolve.mappedValue : evaluation.trigger.mappedValue,
        reason: evaluation.action === 'none' ? evaluation.trigger.reason : null,
      });
    });
  }
  return { items, totals };
}
