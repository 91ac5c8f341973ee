import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { AdminApi } from '../../../shared/auth/admin-key.guard.js';
import { TemplatesService } from '../templates.service.js';
import type { IntegrationTemplate } from '../templates.facade.js';

class TemplateTriggerDto {
  @ApiProperty({ example: 'status' }) payloadKey!: string;
  @ApiProperty({ example: 'running' }) valueContains!: string;
  @ApiProperty({ type: String, nullable: true, example: 'traceId' }) mapIncidentWith!: string | null;
  @ApiProperty({ example: 'name' }) titleFrom!: string;
  @ApiProperty({ type: String, nullable: true, example: 'duration' }) descriptionFrom!: string | null;
}

class TemplateResolveDto {
  @ApiProperty({ example: 'status' }) payloadKey!: string;
  @ApiProperty({ example: 'completed' }) valueContains!: string;
  @ApiProperty({ example: 'traceId' }) incidentMappedWith!: string;
}

class TemplateDto {
  @ApiProperty({ example: 'zipkin-tracing' }) id!: string;
  @ApiProperty({ example: 'Zipkin tracing' }) name!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: TemplateTriggerDto }) trigger!: TemplateTriggerDto;
  @ApiPropertyOptional({ type: TemplateResolveDto, nullable: true }) resolve!: TemplateResolveDto | null;
}

class TemplateListDto {
  @ApiProperty({ type: TemplateDto, isArray: true }) items!: TemplateDto[];
  @ApiProperty({ type: String, nullable: true, example: null }) nextCursor!: null;
}

@ApiTags('Integration templates')
@AdminApi()
@Controller('api/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @Get()
  @ApiOperation({ summary: 'List the integration templates', description: 'Pass an `id` as `template` when creating a filter.' })
  @ApiOkResponse({ type: TemplateListDto })
  list(): { items: IntegrationTemplate[]; nextCursor: null } {
    return { items: this.templates.list(), nextCursor: null };
  }
}
