import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsUUID } from 'class-validator';
import { PageOf, PageQueryDto } from '../../../../shared/http/pagination.js';
import { IsOmittable } from '../../../../shared/http/validation.js';
import type { Incident } from '../../domain/incident.entity.js';

export class ListIncidentsQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: ['open', 'resolved'] })
  @IsOmittable()
  @IsIn(['open', 'resolved'])
  status?: 'open' | 'resolved';

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOmittable()
  @IsUUID()
  tokenId?: string;

  @ApiPropertyOptional({ format: 'uuid' })
  @IsOmittable()
  @IsUUID()
  filterId?: string;
}

export class IncidentDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ format: 'uuid' }) tokenId!: string;
  @ApiProperty({ format: 'uuid' }) filterId!: string;
  @ApiProperty({ example: 'checkout', description: 'From the trigger\'s titleFrom key (at most 1000 characters)' }) title!: string;
  @ApiProperty({ example: '1200', description: 'From descriptionFrom, or the payload\'s full JSON' }) description!: string;
  @ApiProperty({ type: String, nullable: true, example: '5af7183fb1d4cf5f', description: 'The mapIncidentWith value that correlates triggers and resolves' }) mappedValue!: string | null;
  @ApiProperty({ enum: ['open', 'resolved'] }) status!: 'open' | 'resolved';
  @ApiProperty({ example: 1, description: 'Triggers received while open (deduplicated)' }) triggerCount!: number;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) lastTriggeredAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) resolvedAt!: string | null;
  @ApiProperty({ type: String, enum: ['filter', 'admin'], nullable: true }) resolvedBy!: 'filter' | 'admin' | null;
}

export const IncidentPageDto = PageOf(IncidentDto, 'IncidentPageDto');

export function toIncidentDto(incident: Incident): IncidentDto {
  return {
    id: incident.id,
    tokenId: incident.tokenId,
    filterId: incident.filterId,
    title: incident.title,
    description: incident.description,
    mappedValue: incident.mappedValue,
    status: incident.status,
    triggerCount: incident.triggerCount,
    createdAt: incident.createdAt.toISOString(),
    lastTriggeredAt: incident.lastTriggeredAt.toISOString(),
    resolvedAt: incident.resolvedAt?.toISOString() ?? null,
    resolvedBy: incident.resolvedBy,
  };
}
