import { Module } from '@nestjs/common';
import { TemplatesModule, type IntegrationTemplate } from '../../modules/templates/contracts.js';

/**
 * Prometheus Alertmanager's webhook (`webhook_configs`, payload version 4): one notification per
 * alert group. A firing group opens an incident mapped by its `groupKey` (repeats deduplicate);
 * the group's resolved notification (`send_resolved: true`) resolves it.
 */
export const prometheusAlertmanagerTemplate: IntegrationTemplate = {
  id: 'prometheus-alertmanager',
  name: 'Prometheus Alertmanager',
  description:
    'Alertmanager webhook notifications (POST /v1/alert): status "firing" opens an incident per alert group (groupKey), titled by the group\'s alertname; status "resolved" resolves it. Set send_resolved: true.',
  trigger: {
    payloadKey: 'status',
    valueContains: 'firing',
    mapIncidentWith: 'groupKey',
    titleFrom: 'groupLabels.alertname',
    descriptionFrom: 'commonAnnotations.summary',
  },
  resolve: { payloadKey: 'status', valueContains: 'resolved', incidentMappedWith: 'groupKey' },
};

@Module({ imports: [TemplatesModule.register(prometheusAlertmanagerTemplate)] })
export class PrometheusAlertmanagerTemplateModule {}
