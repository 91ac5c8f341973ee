import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminApi } from '../../../shared/auth/admin-key.guard.js';
import { ErrorResponseDto } from '../../../shared/http/error-response.dto.js';
import { IncidentsService } from '../incidents.service.js';
import { IncidentDto, IncidentPageDto, ListIncidentsQueryDto } from './dto/incident.dto.js';

@ApiTags('Incidents')
@AdminApi()
@Controller('api/incidents')
export class IncidentsController {
  constructor(private readonly incidents: IncidentsService) {}

  @Get()
  @ApiOperation({ summary: 'List incidents, newest first' })
  @ApiOkResponse({ type: IncidentPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Bad status, tokenId, filterId, limit or cursor' })
  list(@Query() query: ListIncidentsQueryDto) {
    return this.incidents.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read an incident' })
  @ApiOkResponse({ type: IncidentDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  get(@Param('id') id: string): Promise<IncidentDto> {
    return this.incidents.get(id);
  }

  @Post(':id/resolve')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resolve an incident by hand', description: 'For sources with no resolve filter. Resolving twice is harmless: the incident is answered as it is.' })
  @ApiOkResponse({ type: IncidentDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  resolve(@Param('id') id: string): Promise<IncidentDto> {
    return this.incidents.resolve(id);
  }
}
