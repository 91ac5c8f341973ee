import { Module } from '@nestjs/common';
import { TokensModule } from '../tokens/contracts.js';
import { FiltersFacade } from './filters.facade.js';
import { FiltersService } from './filters.service.js';
import { FiltersController } from './http/filters.controller.js';

@Module({
  imports: [TokensModule],
  controllers: [FiltersController],
  providers: [FiltersService, { provide: FiltersFacade, useExisting: FiltersService }],
  exports: [FiltersFacade],
})
export class FiltersModule {}
