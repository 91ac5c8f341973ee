import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { TokensService } from '../tokens.service.js';

export const DEBUG_EXPIRY_INTERVAL_MS = 60_000;

/** Every minute: switch expired debug windows off (and publish TokenDebugExpired). */
@Injectable()
export class DebugExpiryJob {
  constructor(private readonly tokens: TokensService) {}

  @Interval('token-debug-expiry', DEBUG_EXPIRY_INTERVAL_MS)
  async run(): Promise<void> {
    await this.tokens.expireDebugWindows();
  }
}
