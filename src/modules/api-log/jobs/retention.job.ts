import { Injectable } from '@nestjs/common';
import { Interval } from '@nestjs/schedule';
import { ApiLogService } from '../api-log.service.js';

export const RETENTION_INTERVAL_MS = 10 * 60_000;

/** Every ten minutes: delete API log entries older than API_LOG_RETENTION. */
@Injectable()
export class ApiLogRetentionJob {
  constructor(private readonly apiLog: ApiLogService) {}

  @Interval('api-log-retention', RETENTION_INTERVAL_MS)
  async run(): Promise<void> {
    await this.apiLog.pruneExpired();
  }
}
