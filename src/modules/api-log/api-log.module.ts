import { Module } from '@nestjs/common';
import { ApiLogFacade } from './api-log.facade.js';
import { ApiLogService } from './api-log.service.js';
import { ApiLogRetentionJob } from './jobs/retention.job.js';
import { ApiLogController } from './http/api-log.controller.js';

/** The API log of tokens in debug mode. */
@Module({
  controllers: [ApiLogController],
  providers: [ApiLogService, { provide: ApiLogFacade, useExisting: ApiLogService }, ApiLogRetentionJob],
  exports: [ApiLogFacade],
})
export class ApiLogModule {}
