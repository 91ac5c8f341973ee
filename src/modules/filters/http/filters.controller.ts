import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminApi } from '../../../shared/auth/admin-key.guard.js';
import { ErrorResponseDto } from '../../../shared/http/error-response.dto.js';
import { FiltersService } from '../filters.service.js';
import { BacktestDto, BacktestResultDto, CreateFilterDto, DraftBacktestDto, DryRunDto, FilterDto, FilterPageDto, ListFiltersQueryDto, TestFilterDto, UpdateFilterDto } from './dto/filter.dto.js';

@ApiTags('API filters')
@AdminApi()
@Controller('api/filters')
export class FiltersController {
  constructor(private readonly filters: FiltersService) {}

  @Post()
  @ApiOperation({
    summary: 'Create a filter for a token',
    description: 'Pick an integration template to fill every value; values given beside it replace the template\'s. Without a template, trigger.payloadKey, trigger.valueContains and trigger.titleFrom are required. Resolve values come all three or none.',
  })
  @ApiCreatedResponse({ type: FilterDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid values, a partial resolve part, or an unknown template (the known ids are listed)' })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'Unknown token' })
  create(@Body() body: CreateFilterDto): Promise<FilterDto> {
    return this.filters.create(body);
  }

  @Post('backtest')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Backtest a filter not yet saved against a token\'s API log',
    description: 'Replays the token\'s newest logged payloads (debug mode must have been on) through the given values, as the intake would. Nothing is written.',
  })
  @ApiOkResponse({ type: BacktestResultDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'Unknown token' })
  backtestDraft(@Body() body: DraftBacktestDto): Promise<BacktestResultDto> {
    return this.filters.backtestDraft(body);
  }

  @Get()
  @ApiOperation({ summary: 'List filters, newest first' })
  @ApiOkResponse({ type: FilterPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto })
  list(@Query() query: ListFiltersQueryDto) {
    return this.filters.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a filter' })
  @ApiOkResponse({ type: FilterDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  get(@Param('id') id: string): Promise<FilterDto> {
    return this.filters.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Edit a filter', description: 'Only the values given change; `resolve: null` removes the resolve part.' })
  @ApiOkResponse({ type: FilterDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  update(@Param('id') id: string, @Body() body: UpdateFilterDto): Promise<FilterDto> {
    return this.filters.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a filter', description: 'Its incidents stay; open ones can be resolved by hand.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  remove(@Param('id') id: string): Promise<void> {
    return this.filters.remove(id);
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({ summary: 'Dry run: what this filter would do with a payload', description: 'Nothing is written. `reason` says why a part did not match.' })
  @ApiOkResponse({ type: DryRunDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  test(@Param('id') id: string, @Body() body: TestFilterDto): Promise<DryRunDto> {
    return this.filters.dryRun(id, body.payload);
  }

  @Post(':id/backtest')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Backtest a saved filter against its token\'s API log',
    description: 'Replays the newest `limit` logged calls (default 100, at most 1000) through the filter, as the intake would. Nothing is written.',
  })
  @ApiOkResponse({ type: BacktestResultDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  backtest(@Param('id') id: string, @Body() body: BacktestDto): Promise<BacktestResultDto> {
    return this.filters.backtestSaved(id, body.limit);
  }
}
