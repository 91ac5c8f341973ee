import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { DISPATCH_INTERVAL_MS, WebhookDispatcher } from '../webhook.dispatcher.js';

export const DELIVERY_RETENTION_INTERVAL_MS = 10 * 60_000;

/** Every second: send due webhook deliveries. Every ten minutes: delete old finished ones. */
@Injectable()
export class WebhookDispatchJob {
  constructor(private readonly dispatcher: WebhookDispatcher) {}

  @Interval('webhook-dispatch', DISPATCH_INTERVAL_MS)
  async run(): Promise<void> {
    await this.dispatcher.dispatchDue();
  }

  @Interval('webhook-delivery-retention', DELIVERY_RETENTION_INTERVAL_MS)
  async prune(): Promise<void> {
    await this.dispatcher.pruneFinished();
  }
}
