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
import { resolveById, resolveMapped, triggerIncident } from './incident.store.js';
import { toIncidentDto, type IncidentDto, type ListIncidentsQueryDto } from './http/dto/incident.dto.js';

/** Stands in for an EntityManager when every decision is `none`: nothing may be written. */
const NO_WRITES = new Proxy({} as EntityManager, {
  get: () => {
    throw new Error('no incident write was planned for this call');
  },
});

/** Incident-writing transactions an instance runs at once; calls beyond share them (group commit). */
const WRITE_TRANSACTIONS_AT_ONCE = 4;

type IncidentEvent = { [K in keyof IncidentsEvents]: { name: K; payload: IncidentsEvents[K] } }[keyof IncidentsEvents];

@Injectable()
export class IncidentsService {
  constructor(
    private readonly orm: MikroORM,
    private readonly events: EventBus,
  ) {}

  /** Group commit of concurrent calls' incident writes. */
  private readonly batcher = new WriteBatcher<EntityManager>((work) => inTransaction(this.orm, work), WRITE_TRANSACTIONS_AT_ONCE);

  /**
   * Carries out the filters' decisions for one call in one transaction, payloads in order (a
   * start and its completion in one body resolve each other), and publishes the incident events
   * inside that transaction, awaited: a handler may write through `currentTransaction` (an outbox
   * row), and its writes commit or roll back with the incidents.
   */
  @OnDomainEvent('PayloadEvaluated')
  async onPayloadEvaluated(event: PayloadEvaluated): Promise<PayloadOutcome[]> {
    const at = event.receivedAt;
    const published: IncidentEvent[] = [];
    return this.withWriter(event, async (em) => {
      const results: PayloadOutcome[] = [];
      for (const [index, decisions] of event.decisions.entries()) {
        const filters: FilterOutcome[] = [];
        for (const decision of decisions) {
          const base = { filterId: decision.filterId, filterName: decision.filterName };
          if (decision.action === 'none') {
            filters.push({ ...base, action: 'unmatched', incidentId: null });
          } else if (decision.action === 'resolve') {
            const id = decision.mappedValue === null ? null : await resolveMapped(em, decision.filterId, decision.mappedValue, at);
            filters.push({ ...base, action: id ? 'resolved' : 'no-open-incident', incidentId: id });
            if (id) {
              published.push({
                name: 'IncidentResolved',
                payload: { incidentId: id, tokenId: event.tokenId, filterId: decision.filterId, mappedValue: decision.mappedValue, resolvedBy: 'filter', resolvedAt: at.toISOString() },
              });
            }
          } else {
            const write = { tokenId: event.tokenId, filterId: decision.filterId, title: decision.title, description: decision.description, mappedValue: decision.mappedValue, at };
            const result = await triggerIncident(em, write);
            filters.push({ ...base, action: result.created ? 'created' : 'deduplicated', incidentId: result.id });
            published.push(
              result.created
                ? { name: 'IncidentCreated', payload: { incidentId: result.id, tokenId: event.tokenId, filterId: decision.filterId, title: decision.title, mappedValue: decision.mappedValue, createdAt: at.toISOString() } }
                : { name: 'IncidentDeduplicated', payload: { incidentId: result.id, tokenId: event.tokenId, filterId: decision.filterId, mappedValue: decision.mappedValue ?? '', triggerCount: result.triggerCount, lastTriggeredAt: at.toISOString() } },
            );
          }
        }
        results.push({ index, filters });
      }
      // Still inside the transaction: the events' handlers write with the incidents, or not at all.
      for (const { name, payload } of published) await this.events.publish(name, payload as never);
      return results;
    });
  }

  /**
   * Runs the writes and the publishing of their events in one transaction: the caller's when there
   * is one (an intake call with an Idempotency-Key), else one shared with the writes of other calls
   * arriving meanwhile (group commit, see WriteBatcher). A call with no write touches no connection.
   */
  private withWriter<T>(event: PayloadEvaluated, work: (em: EntityManager) => Promise<T>): Promise<T> {
    const writes = event.decisions.reduce((n, decisions) => n + decisions.filter((d) => d.action !== 'none').length, 0);
    if (writes === 0) return work(NO_WRITES);
    const outer = transactionOrUndefined(this.orm);
    return outer ? work(outer) : this.batcher.submit(work);
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
