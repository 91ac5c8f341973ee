import { Injectable } from '@nestjs/common';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { inTransaction, transactionOrUndefined } from '../../shared/database/transaction.js';
import { WriteBatcher } from '../../shared/database/write-batcher.js';
import { EventBus, OnDomainEvent } from '../../shared/events/event-bus.js';
import { decodeCursor, olderThan, PAGE_LIMIT_DEFAULT, toPage, type Page } from '../../shared/http/pagination.js';
import { isUuid } from '../../shared/ids.js';
import type { PayloadEvaluated } from '../filters/contracts.js';
import type { FilterOutcome, PayloadOutcome } from '../intake/contracts.js';
import type { IncidentsEvents } from './contracts.js';
import { Incident } from './domain/incident.entity.js';
import { IncidentNotFoundError } from './domain/incident.errors.js';
import { applyIncidentWrites, resolveById, type IncidentWrite, type IncidentWriteResult, type TriggerResult } from './incident.store.js';
import { toIncidentDto, type IncidentDto, type ListIncidentsQueryDto } from './http/dto/incident.dto.js';

/** Incident-writing transactions an instance runs at once; calls beyond share them (group commit). */
const WRITE_TRANSACTIONS_AT_ONCE = 2;

type IncidentEvent = { [K in keyof IncidentsEvents]: { name: K; payload: IncidentsEvents[K] } }[keyof IncidentsEvents];

/** One call's filter decisions, and where each write among them lands in its answer. */
interface CallWrites {
  event: PayloadEvaluated;
  writes: IncidentWrite[];
}

@Injectable()
export class IncidentsService {
  constructor(
    private readonly orm: MikroORM,
    private readonly events: EventBus,
  ) {}

  /** Group commit of concurrent calls' incident writes, as multi-row statements. */
  private readonly batcher = new WriteBatcher<CallWrites, PayloadOutcome[]>(
    (calls) => inTransaction(this.orm, (em) => this.carryOut(em, calls)),
    WRITE_TRANSACTIONS_AT_ONCE,
  );

  /**
   * Carries out the filters' decisions for one call in one transaction, with the outcome of
   * running them one by one in payload order (a start and its completion in one body resolve each
   * other), and publishes the incident events inside that transaction, awaited: a handler may
   * write through `currentTransaction` (an outbox row), and its writes commit or roll back with
   * the incidents. The transaction is the caller's when there is one (an intake call with an
   * Idempotency-Key), else one shared with the calls arriving meanwhile (group commit, see
   * WriteBatcher). A call with no write touches no connection.
   */
  @OnDomainEvent('PayloadEvaluated')
  async onPayloadEvaluated(event: PayloadEvaluated): Promise<PayloadOutcome[]> {
    const call: CallWrites = { event, writes: writesOf(event) };
    if (call.writes.length === 0) return this.answer(call, []).outcomes;
    const outer = transactionOrUndefined(this.orm);
    return outer ? (await this.carryOut(outer, [call]))[0] : this.batcher.submit(call);
  }

  /** Writes the calls' incidents together, then publishes each call's events; one answer per call. */
  private async carryOut(em: EntityManager, calls: CallWrites[]): Promise<PayloadOutcome[][]> {
    const results = await applyIncidentWrites(em, calls.flatMap((call) => call.writes));
    let next = 0;
    const answers = calls.map((call) => this.answer(call, results.slice(next, (next += call.writes.length))));
    // Still inside the transaction: the events' handlers write with the incidents, or not at all.
    for (const { published } of answers) for (const { name, payload } of published) await this.events.publish(name, payload as never);
    return answers.map((answer) => answer.outcomes);
  }

  /** A call's answer and events, from the results of its writes (in the order writesOf listed them). */
  private answer({ event }: CallWrites, results: IncidentWriteResult[]): { outcomes: PayloadOutcome[]; published: IncidentEvent[] } {
    const at = event.receivedAt.toISOString();
    const published: IncidentEvent[] = [];
    let next = 0;
    const outcomes = event.decisions.map((decisions, index): PayloadOutcome => ({
      index,
      filters: decisions.map((decision): FilterOutcome => {
        const base = { filterId: decision.filterId, filterName: decision.filterName };
        if (decision.action === 'none') return { ...base, action: 'unmatched', incidentId: null };
        const { filterId, mappedValue } = decision;
        if (decision.action === 'resolve') {
          const id = mappedValue === null ? null : results[next++].id;
          if (id) published.push({ name: 'IncidentResolved', payload: { incidentId: id, tokenId: event.tokenId, filterId, mappedValue, resolvedBy: 'filter', resolvedAt: at } });
          return { ...base, action: id ? 'resolved' : 'no-open-incident', incidentId: id };
        }
        const result = results[next++] as TriggerResult;
        published.push(
          result.created
            ? { name: 'IncidentCreated', payload: { incidentId: result.id, tokenId: event.tokenId, filterId, title: decision.title, mappedValue, createdAt: at } }
            : { name: 'IncidentDeduplicated', payload: { incidentId: result.id, tokenId: event.tokenId, filterId, mappedValue: mappedValue ?? '', triggerCount: result.triggerCount, lastTriggeredAt: at } },
        );
        return { ...base, action: result.created ? 'created' : 'deduplicated', incidentId: result.id };
      }),
    }));
    return { outcomes, published };
  }

  async list(query: ListIncidentsQueryDto): Promise<Page<IncidentDto>> {
    const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
    const cursor = decodeCursor(query.cursor);
    const where = {
      ...(query.status ? { status: query.status } : {}),
      ...(query.tokenId ? { tokenId: query.tokenId } : {}),
      ...(query.filterId ? { filterId: query.filterId } : {}),
      ...olderThan('createdAt', cursor),
    };
    const rows = await this.orm.em.fork().find(Incident, where, { orderBy: { createdAt: 'desc', id: 'desc' }, limit: limit + 1 });
    return toPage(rows, limit, (i) => i.createdAt, toIncidentDto);
  }

  async get(id: string): Promise<IncidentDto> {
    return toIncidentDto(await this.find(id));
  }

  /**
   * Resolves by hand; resolving a resolved incident changes nothing and answers it as it is. The
   * update and the publishing of IncidentResolved share one transaction, as in the intake.
   */
  async resolve(id: string): Promise<IncidentDto> {
    if (!isUuid(id)) throw new IncidentNotFoundError(id);
    const at = new Date();
    await inTransaction(this.orm, async (em) => {
      const row = await resolveById(em, id, at);
      if (!row) return;
      await this.events.publish('IncidentResolved', {
        incidentId: row.id,
        tokenId: row.token_id,
        filterId: row.filter_id,
        mappedValue: row.mapped_value,
        resolvedBy: 'admin',
        resolvedAt: at.toISOString(),
      });
    });
    return this.get(id);
  }

  private async find(id: string): Promise<Incident> {
    const incident = isUuid(id) ? await this.orm.em.fork().findOne(Incident, { id }) : null;
    if (!incident) throw new IncidentNotFoundError(id);
    return incident;
  }
}

/** The writes a call's decisions ask for, in payload and filter order (a resolve without a mapped value has nothing to resolve). */
function writesOf(event: PayloadEvaluated): IncidentWrite[] {
  const writes: IncidentWrite[] = [];
  const at = event.receivedAt;
  for (const decisions of event.decisions) {
    for (const d of decisions) {
      if (d.action === 'trigger') writes.push({ kind: 'trigger', tokenId: event.tokenId, filterId: d.filterId, title: d.title, description: d.description, mappedValue: d.mappedValue, at });
      else if (d.action === 'resolve' && d.mappedValue !== null) writes.push({ kind: 'resolve', filterId: d.filterId, mappedValue: d.mappedValue, at });
    }
  }
  return writes;
}
