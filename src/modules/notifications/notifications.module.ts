import { Module } from '@nestjs/common';
import { WebhooksController } from './http/webhooks.controller.js';
import { WebhookDispatchJob } from './jobs/webhook-dispatch.job.js';
import { NotificationsService } from './notifications.service.js';
import { WebhookDispatcher } from './webhook.dispatcher.js';

/** Outbound webhooks: subscriptions, the outbox written on incident events, and its dispatcher. */
@Module({
  controllers: [WebhooksController],
  providers: [NotificationsService, WebhookDispatcher, WebhookDispatchJob],
})
export class NotificationsModule {}
