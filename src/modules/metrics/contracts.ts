/** The metrics module's public surface: the HTTP observer the application wires into Fastify. */
export { MetricsFacade } from './metrics.facade.js';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface MetricsEvents {}
export { MetricsModule } from './metrics.module.js';
