import { Module } from '@nestjs/common';
import { ApiTokenGuard } from './http/api-token.guard.js';
import { TokensFacade } from './tokens.facade.js';
import { TokensController } from './http/tokens.controller.js';
import { TokensService } from './tokens.service.js';
import { DebugExpiryJob } from './jobs/debug-expiry.job.js';

@Module({
  controllers: [TokensController],
  providers: [TokensService, { provide: TokensFacade, useExisting: TokensService }, ApiTokenGuard, DebugExpiryJob],
  exports: [TokensFacade, ApiTokenGuard],
})
export class TokensModule {}
