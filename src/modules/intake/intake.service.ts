import { Injectable } from '@nestjs/common';
import { EventBus } from '../../shared/events/event-bus.js';
import type { AuthenticatedToken } from '../tokens/contracts.js';
import type { PayloadOutcome } from './contracts.js';
import { decodeIntakeBody, type IntakeHeaders } from './domain/intake-body.js';

export interface IntakeResult {
  received: number;
  payloads: PayloadOutcome[];
}

@Injectable()
export class IntakeService {
  constructor(private readonly events: EventBus) {}

  /** Decodes the body and publishes PayloadReceived; returns once every effect is committed. */
  async receive(token: AuthenticatedToken, path: string, bytes: Buffer, headers: IntakeHeaders): Promise<IntakeResult> {
    const { payloads } = decodeIntakeBody(bytes, headers);
    if (payloads.length === 0) return { received: 0, payloads: [] };
    const outcomes = await this.events.request('PayloadReceived', { tokenId: token.id, path, receivedAt: new Date(), payloads });
    return { received: payloads.length, payloads: outcomes };
  }
}
