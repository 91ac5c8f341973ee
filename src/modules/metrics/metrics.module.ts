import { Module } from '@nestjs/common';
import { MetricsController } from './http/metrics.controller.js';
import { MetricsFacade } from './metrics.facade.js';
import { MetricsService } from './metrics.service.js';

/** Prometheus metrics (prom-client) at /metrics, fed by the HTTP layer and by domain events. */
@Module({
  controllers: [MetricsController],
  providers: [MetricsService, { provide: MetricsFacade, useExisting: MetricsService }],
  exports: [MetricsFacade],
})
export class MetricsModule {}
