import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsObject, IsOptional, IsString, IsUUID, Length, Max, Min, ValidateNested } from 'class-validator';
import { PageOf, PageQueryDto } from '../../../../shared/http/pagination.js';
import { IsOmittable } from '../../../../shared/http/validation.js';
import { FILTER_NAME_MAX, KEY_MAX, TEXT_MAX, type Filter } from '../../domain/filter.entity.js';

export class TriggerValuesDto {
  @ApiPropertyOptional({ maxLength: KEY_MAX, example: 'status', description: 'Key whose value is tested; dots reach into nested objects and arrays (`tags.status`, `alerts.0.status`)' })
  @IsOmittable()
  @IsString()
  @Length(1, KEY_MAX)
  payloadKey?: string;

  @ApiPropertyOptional({ maxLength: TEXT_MAX, example: 'running', description: 'Text the value must contain (case-sensitive)' })
  @IsOmittable()
  @IsString()
  @Length(1, TEXT_MAX)
  valueContains?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: KEY_MAX, example: 'traceId', description: 'Key whose value identifies the incident (deduplication and resolve); null: every match opens a new incident' })
  @IsOptional()
  @IsString()
  @Length(1, KEY_MAX)
  mapIncidentWith?: string | null;

  @ApiPropertyOptional({ maxLength: KEY_MAX, example: 'name', description: 'Key whose value becomes the incident title' })
  @IsOmittable()
  @IsString()
  @Length(1, KEY_MAX)
  titleFrom?: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: KEY_MAX, example: 'duration', description: 'Key whose value becomes the description; null: the payload\'s full JSON' })
  @IsOptional()
  @IsString()
  @Length(1, KEY_MAX)
  descriptionFrom?: string | null;
}

export class ResolveValuesDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: KEY_MAX, example: 'status' })
  @IsOptional()
  @IsString()
  @Length(1, KEY_MAX)
  payloadKey?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: TEXT_MAX, example: 'completed' })
  @IsOptional()
  @IsString()
  @Length(1, TEXT_MAX)
  valueContains?: string | null;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: KEY_MAX, example: 'traceId', description: 'Key whose value must equal an open incident\'s mapped value' })
  @IsOptional()
  @IsString()
  @Length(1, KEY_MAX)
  incidentMappedWith?: string | null;
}

export class CreateFilterDto {
  @ApiProperty({ format: 'uuid', description: 'The API token whose intake calls this filter evaluates' })
  @IsString()
  tokenId!: string;

  @ApiPropertyOptional({ type: String, nullable: true, maxLength: FILTER_NAME_MAX, example: 'Slow traces' })
  @IsOptional()
  @IsString()
  @Length(1, FILTER_NAME_MAX)
  name?: string | null;

  /** The enum of known ids is filled into the OpenAPI document at start-up (a dropdown in Swagger UI). */
  @ApiPropertyOptional({ title: 'Select Integration Template', description: 'Fills every trigger and resolve value; values given beside it replace the template\'s', example: 'zipkin-tracing' })
  @IsOmittable()
  @IsString()
  @Length(1, 100)
  template?: string;

  @ApiPropertyOptional({ type: TriggerValuesDto, description: 'Required without a template: payloadKey, valueContains, titleFrom' })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => TriggerValuesDto)
  trigger?: TriggerValuesDto;

  @ApiPropertyOptional({ type: ResolveValuesDto, nullable: true, description: 'All three values or none; null: no resolve part' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResolveValuesDto)
  resolve?: ResolveValuesDto | null;
}

export class UpdateFilterDto {
  @ApiPropertyOptional({ type: String, nullable: true, maxLength: FILTER_NAME_MAX })
  @IsOptional()
  @IsString()
  @Length(1, FILTER_NAME_MAX)
  name?: string | null;

  @ApiPropertyOptional({ type: TriggerValuesDto, description: 'Only the values given change' })
  @IsOmittable()
  @IsObject()
  @ValidateNested()
  @Type(() => TriggerValuesDto)
  trigger?: TriggerValuesDto;

  @ApiPropertyOptional({ type: ResolveValuesDto, nullable: true, description: 'Only the values given change; null removes the resolve part' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResolveValuesDto)
  resolve?: ResolveValuesDto | null;
}

export class ListFiltersQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'Only this token\'s filters' })
  @IsOmittable()
  @IsUUID()
  tokenId?: string;
}

export class TestFilterDto {
  @ApiProperty({ type: 'object', additionalProperties: true, example: { traceId: 'a1b2c3', name: 'checkout', status: 'running', duration: 1200 }, description: 'One payload, as an integration would send it' })
  @IsObject()
  payload!: Record<string, unknown>;
}

class TriggerDto {
  @ApiProperty({ example: 'status' }) payloadKey!: string;
  @ApiProperty({ example: 'running' }) valueContains!: string;
  @ApiProperty({ type: String, nullable: true, example: 'traceId' }) mapIncidentWith!: string | null;
  @ApiProperty({ example: 'name' }) titleFrom!: string;
  @ApiProperty({ type: String, nullable: true, example: 'duration' }) descriptionFrom!: string | null;
}

class ResolveDto {
  @ApiProperty({ example: 'status' }) payloadKey!: string;
  @ApiProperty({ example: 'completed' }) valueContains!: string;
  @ApiProperty({ example: 'traceId' }) incidentMappedWith!: string;
}

export class FilterDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) tokenId!: string;
  @ApiProperty({ type: String, nullable: true }) name!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'The template it was created from' }) template!: string | null;
  @ApiProperty({ type: TriggerDto }) trigger!: TriggerDto;
  @ApiProperty({ type: ResolveDto, nullable: true, description: 'null: no resolve part (resolve by hand)' }) resolve!: ResolveDto | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export const FilterPageDto = PageOf(FilterDto, 'FilterPageDto');

export function toFilterDto(filter: Filter): FilterDto {
  return {
    id: filter.id,
    tokenId: filter.tokenId,
    name: filter.name,
    template: filter.template,
    trigger: filter.trigger,
    resolve: filter.resolve,
    createdAt: filter.createdAt.toISOString(),
    updatedAt: filter.updatedAt.toISOString(),
  };
}

class TriggerExplanationDto {
  @ApiProperty() matched!: boolean;
  @ApiProperty({ type: String, nullable: true, example: 'value of "status" ("completed") does not contain "running"' }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) title!: string | null;
  @ApiProperty({ type: String, nullable: true }) description!: string | null;
  @ApiProperty({ type: String, nullable: true }) mappedValue!: string | null;
}

class ResolveExplanationDto {
  @ApiProperty() matched!: boolean;
  @ApiProperty({ type: String, nullable: true, example: 'resolve is not configured' }) reason!: string | null;
  @ApiProperty({ type: String, nullable: true }) mappedValue!: string | null;
}

export class DryRunDto {
  @ApiProperty({ enum: ['trigger', 'resolve', 'none'], description: 'What the filter would do; resolve is checked first' }) action!: 'trigger' | 'resolve' | 'none';
  @ApiProperty({ type: TriggerExplanationDto }) trigger!: TriggerExplanationDto;
  @ApiProperty({ type: ResolveExplanationDto }) resolve!: ResolveExplanationDto;
}


export const BACKTEST_LIMIT_DEFAULT = 100;
export const BACKTEST_LIMIT_MAX = 1000;

export class BacktestDto {
  @ApiPropertyOptional({ minimum: 1, maximum: BACKTEST_LIMIT_MAX, default: BACKTEST_LIMIT_DEFAULT, description: 'How many of the newest logged calls to replay' })
  @IsOmittable()
  @IsInt()
  @Min(1)
  @Max(BACKTEST_LIMIT_MAX)
  limit?: number;
}

export class DraftBacktestDto extends BacktestDto {
  @ApiProperty({ format: 'uuid', description: 'The token whose logged calls are replayed' })
  @IsString()
  tokenId!: string;

  @ApiProperty({ type: TriggerValuesDto, description: 'payloadKey, valueContains and titleFrom required' })
  @IsObject()
  @ValidateNested()
  @Type(() => TriggerValuesDto)
  trigger!: TriggerValuesDto;

  @ApiPropertyOptional({ type: ResolveValuesDto, nullable: true, description: 'All three values or none' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResolveValuesDto)
  resolve?: ResolveValuesDto | null;
}

export class BacktestItemDto {
  @ApiProperty({ format: 'uuid' }) logEntryId!: string;
  @ApiProperty({ format: 'date-time' }) receivedAt!: string;
  @ApiProperty({ description: 'Position of the payload in the logged body' }) payloadIndex!: number;
  @ApiProperty({ enum: ['trigger', 'resolve', 'none'] }) action!: 'trigger' | 'resolve' | 'none';
  @ApiProperty({ type: String, nullable: true }) title!: string | null;
  @ApiProperty({ type: String, nullable: true }) mappedValue!: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'For none: why the trigger did not match' }) reason!: string | null;
}

class BacktestTotalsDto {
  @ApiProperty() trigger!: number;
  @ApiProperty() resolve!: number;
  @ApiProperty() none!: number;
}

export class BacktestResultDto {
  @ApiProperty({ type: BacktestItemDto, isArray: true, description: 'Newest first; one item per logged payload' }) items!: BacktestItemDto[];
  @ApiProperty({ type: BacktestTotalsDto }) totals!: BacktestTotalsDto;
}
