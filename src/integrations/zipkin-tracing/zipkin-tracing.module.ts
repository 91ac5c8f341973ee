import { Module } from '@nestjs/common';
import { TemplatesModule, type IntegrationTemplate } from '../../modules/templates/contracts.js';

/** A Zipkin reporter's spans: `status` running opens, completed resolves, by `traceId`. */
export const zipkinTracingTemplate: IntegrationTemplate = {
  id: 'zipkin-tracing',
  name: 'Zipkin tracing',
  description: 'Spans from a Zipkin HTTP reporter (POST /v1/trace): a status containing "running" opens an incident per traceId, "completed" resolves it.',
  trigger: { payloadKey: 'status', valueContains: 'running', mapIncidentWith: 'traceId', titleFrom: 'name', descriptionFrom: 'duration' },
  resolve: { payloadKey: 'status', valueContains: 'completed', incidentMappedWith: 'traceId' },
};

@Module({ imports: [TemplatesModule.register(zipkinTracingTemplate)] })
export class ZipkinTracingTemplateModule {}
