import { Module } from '@nestjs/common';
import { TokensModule } from '../tokens/contracts.js';
import { IntakeController } from './http/intake.controller.js';
import { IntakeService } from './intake.service.js';
import { IdempotencyCleanupJob } from './jobs/idempotency-cleanup.job.js';

@Module({ imports: [TokensModule], controllers: [IntakeController], providers: [IntakeService, IdempotencyCleanupJob] })
export class IntakeModule {}
