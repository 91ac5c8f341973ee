import { Controller, Get, Header } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { register } from 'prom-client';

/** `/metrics` in Prometheus text format, without auth like /health (no secrets, only counts). */
@ApiTags('Health')
@Controller('metrics')
export class MetricsController {
  @Get()
  @Header('content-type', register.contentType)
  @ApiOperation({ summary: 'Prometheus metrics' })
  @ApiProduces('text/plain')
  @ApiOkResponse({
    description: 'intake_requests_total, intake_request_duration_seconds, intake_payload_outcomes_total, incidents_open, api_log_writes_total, webhook_deliveries_total, db_pool_connections and the process metrics',
  })
  metrics(): Promise<string> {
    return register.metrics();
  }
}
