import { randomUUID } from 'node:crypto';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';

export type IncidentStatus = 'open' | 'resolved';
export type ResolvedBy = 'filter' | 'admin';

/**
 * An incident opened by a trigger filter. At most one is open per filter and non-null mapped
 * value: a unique partial index enforces it, and triggers upsert against it (see IncidentStore).
 */
@Entity({ tableName: 'incidents' })
export class Incident {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'uuid' })
  tokenId!: string;

  @Property({ type: 'uuid' })
  filterId!: string;

  @Property({ length: 1000 })
  title!: string;

  @Property({ type: 'text' })
  description!: string;

  @Property({ type: 'text', nullable: true })
  mappedValue!: string | null;

  @Property({ length: 16 })
  status: IncidentStatus = 'open';

  @Property({ type: 'integer' })
  triggerCount = 1;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  lastTriggeredAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  resolvedAt: Date | null = null;

  @Property({ length: 16, nullable: true })
  resolvedBy: ResolvedBy | null = null;
}
