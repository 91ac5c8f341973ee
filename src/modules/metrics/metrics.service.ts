import { Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { collectDefaultMetrics, Counter, Gauge, Histogram, register, type Metric } from 'prom-client';
import { OnDomainEvent } from '../../shared/events/event-bus.js';
import type { IntakeCallCompleted } from '../intake/contracts.js';
import type { ApiLogEntryWritten } from '../api-log/contracts.js';
import type { WebhookDeliveryAttempted } from '../notifications/contracts.js';
import { MetricsFacade } from './metrics.facade.js';

/** An existing metric of that name (a second app in the same process), else a new one. */
function metric<M extends Metric>(name: string, make: () => M): M {
  return (register.getSingleMetric(name) as M | undefined) ?? make();
}

interface PgPool {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** Prometheus metrics of the intake, fed by the HTTP layer and by domain events. */
@Injectable()
export class MetricsService implements MetricsFacade {
  private readonly requests = metric('intake_requests_total', () => new Counter({ name: 'intake_requests_total', help: 'Intake calls answered, by route and status code', labelNames: ['route', 'status'] }));
  private readonly duration = metric(
    'intake_request_duration_seconds',
    () => new Histogram({ name: 'intake_request_duration_seconds', help: 'Time to answer an intake call', labelNames: ['route'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5] }),
  );
  private readonly outcomes = metric('intake_payload_outcomes_total', () => new Counter({ name: 'intake_payload_outcomes_total', help: 'What filters did with received payloads, one count per payload and filter', labelNames: ['action'] }));
  private readonly deliveries = metric('webhook_deliveries_total', () => new Counter({ name: 'webhook_deliveries_total', help: 'Outbound webhook delivery attempts, by result (delivered, retry, failed)', labelNames: ['result'] }));
  private readonly apiLogWrites = metric('api_log_writes_total', () => new Counter({ name: 'api_log_writes_total', help: 'Calls stored in the API log (tokens in debug mode)' }));

  constructor(private readonly orm: MikroORM) {
    if (!register.getSingleMetric('process_cpu_user_seconds_total')) collectDefaultMetrics();
    const db = this.orm;
    metric('incidents_open', () => new Gauge({
      name: 'incidents_open',
      help: 'Incidents open now',
      async collect() {
        const [row] = await db.em.fork().execute<Array<{ n: number }>>(`select count(*)::int as n from incidents where status = 'open'`);
        this.set(row?.n ?? 0);
      },
    }));
    metric('db_pool_connections', () => new Gauge({
      name: 'db_pool_connections',
      help: 'PostgreSQL connections of this instance, by state (total, idle, waiting clients)',
      labelNames: ['state'],
      async collect() {
        const pool = (await db.em.getConnection().getNativeClient()) as unknown as PgPool;
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    }));
  }

  observeHttp(method: string, route: string, statusCode: number, seconds: number): void {
    if (!route.startsWith('/v1/')) return;
    this.requests.inc({ route, status: String(statusCode) });
    this.duration.observe({ route }, seconds);
  }

  @OnDomainEvent('IntakeCallCompleted')
  onIntakeCallCompleted(call: IntakeCallCompleted): void {
    // Counted here and added once per action: a call with 100 filters is 100 outcomes.
    const counts = new Map<string, number>();
    for (const payload of call.outcome ?? []) for (const filter of payload.filters) counts.set(filter.action, (counts.get(filter.action) ?? 0) + 1);
    for (const [action, n] of counts) this.outcomes.inc({ action }, n);
  }

  @OnDomainEvent('WebhookDeliveryAttempted')
  onWebhookDeliveryAttempted(attempt: WebhookDeliveryAttempted): void {
    this.deliveries.inc({ result: attempt.result });
  }

  @OnDomainEvent('ApiLogEntryWritten')
  onApiLogEntryWritten(_entry: ApiLogEntryWritten): void {
    this.apiLogWrites.inc();
  }
}
