import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminApi } from '../../../shared/auth/admin-key.guard.js';
import { ErrorResponseDto } from '../../../shared/http/error-response.dto.js';
import { ApiLogService } from '../api-log.service.js';
import { ApiLogEntryDto, ApiLogPageDto, ListApiLogQueryDto } from './dto/api-log.dto.js';

@ApiTags('API log')
@AdminApi()
@Controller('api/api-log')
export class ApiLogController {
  constructor(private readonly apiLog: ApiLogService) {}

  @Get()
  @ApiOperation({
    summary: 'The calls of tokens in debug mode, newest first',
    description: 'Turn debug on for a token (PATCH /api/tokens/{id} {"debug": true}) and every call made with it is stored here for 48 hours, rejected calls included.',
  })
  @ApiOkResponse({ type: ApiLogPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Bad tokenId, since, until, statusCode, limit or cursor' })
  list(@Query() query: ListApiLogQueryDto) {
    return this.apiLog.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One logged call' })
  @ApiOkResponse({ type: ApiLogEntryDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  get(@Param('id') id: string): Promise<ApiLogEntryDto> {
    return this.apiLog.get(id);
  }
}
