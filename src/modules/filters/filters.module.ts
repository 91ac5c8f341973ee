import { Module } from '@nestjs/common';
import { ApiLogModule } from '../api-log/contracts.js';
import { TokensModule } from '../tokens/contracts.js';
import { FiltersFacade } from './filters.facade.js';
import { FiltersService } from './filters.service.js';
import { FiltersController } from './http/filters.controller.js';

@Module({
  imports: [TokensModule, ApiLogModule],
  controllers: [FiltersController],
  providers: [FiltersService, { provide: FiltersFacade, useExisting: FiltersService }],
  exports: [FiltersFacade],
})
export class FiltersModule {}
