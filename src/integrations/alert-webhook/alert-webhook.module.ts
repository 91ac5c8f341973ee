import { Module } from '@nestjs/common';
import { TemplatesModule, type IntegrationTemplate } from '../../modules/templates/contracts.js';

/** An alerting platform's generic webhook body `{body, title, link}`; resolved by hand. */
export const alertWebhookTemplate: IntegrationTemplate = {
  id: 'alert-webhook',
  name: 'Alert webhook',
  description: 'An alerting platform\'s generic webhook (POST /v1/alert) with the custom body {"body", "title", "link"}: a title containing "Alert" opens an incident; resolve by hand.',
  trigger: { payloadKey: 'title', valueContains: 'Alert', mapIncidentWith: null, titleFrom: 'title', descriptionFrom: 'body' },
  resolve: null,
};

@Module({ imports: [TemplatesModule.register(alertWebhookTemplate)] })
export class AlertWebhookTemplateModule {}
