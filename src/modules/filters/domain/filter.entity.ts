import { randomUUID } from 'node:crypto';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { InvalidInputError } from '../../../shared/errors/domain-error.js';
import type { FilterRule, ResolveRule, TriggerRule } from './filter-matcher.js';

export const KEY_MAX = 500;
export const TEXT_MAX = 1000;
export const FILTER_NAME_MAX = 200;

/** Values given for a resolve part: each may be left out or null. */
export type ResolveValues = { [K in keyof ResolveRule]?: string | null };
export type TriggerValues = { [K in keyof TriggerRule]?: TriggerRule[K] };

export class FilterInvalidError extends InvalidInputError {
  constructor(problems: Array<{ field: string; problem: string }>) {
    super(
      'FILTER_INVALID',
      problems.map((p) => `${p.field} ${p.problem}`).join('; '),
      problems.map((p) => ({ field: p.field, problems: [`${p.field} ${p.problem}`] })),
    );
  }
}

/** An API filter of one token: a trigger part that opens incidents and an optional resolve part. */
@Entity({ tableName: 'filters' })
export class Filter {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ type: 'uuid' })
  tokenId: string;

  @Property({ length: FILTER_NAME_MAX, nullable: true })
  name: string | null;

  /** The template it was created from, for reference; its values may have been edited since. */
  @Property({ length: 100, nullable: true })
  template: string | null;

  @Property({ length: KEY_MAX }) triggerPayloadKey!: string;
  @Property({ length: TEXT_MAX }) triggerValueContains!: string;
  @Property({ length: KEY_MAX, nullable: true }) triggerMapIncidentWith!: string | null;
  @Property({ length: KEY_MAX }) triggerTitleFrom!: string;
  @Property({ length: KEY_MAX, nullable: true }) triggerDescriptionFrom!: string | null;

  @Property({ length: KEY_MAX, nullable: true }) resolvePayloadKey!: string | null;
  @Property({ length: TEXT_MAX, nullable: true }) resolveValueContains!: string | null;
  @Property({ length: KEY_MAX, nullable: true }) resolveIncidentMappedWith!: string | null;

  @Property({ type: 'timestamptz' })
  createdAt: Date;

  @Property({ type: 'timestamptz' })
  updatedAt: Date;

  constructor(tokenId: string, name: string | null, template: string | null, trigger: TriggerValues, resolve: ResolveValues | null, now: Date) {
    this.tokenId = tokenId;
    this.name = name;
    this.template = template;
    this.createdAt = now;
    this.updatedAt = now;
    this.apply(trigger, resolve);
  }

  get trigger(): TriggerRule {
    return {
      payloadKey: this.triggerPayloadKey,
      valueContains: this.triggerValueContains,
      mapIncidentWith: this.triggerMapIncidentWith,
      titleFrom: this.triggerTitleFrom,
      descriptionFrom: this.triggerDescriptionFrom,
    };
  }

  get resolve(): ResolveRule | null {
    if (this.resolvePayloadKey === null || this.resolveValueContains === null || this.resolveIncidentMappedWith === null) return null;
    return { payloadKey: this.resolvePayloadKey, valueContains: this.resolveValueContains, incidentMappedWith: this.resolveIncidentMappedWith };
  }

  toRule(): FilterRule {
    return { id: this.id, name: this.name, trigger: this.trigger, resolve: this.resolve };
  }

  /**
   * Partial edit: each value given replaces that one value; `resolve: null` removes the resolve
   * part. The result must still be a whole filter.
   */
  edit(changes: { name?: string | null; trigger?: TriggerValues; resolve?: ResolveValues | null }, now: Date): void {
    if (changes.name !== undefined) this.name = changes.name;
    const trigger = { ...this.trigger, ...definedOnly(changes.trigger ?? {}) };
    const resolve = changes.resolve === null ? null : { ...(this.resolve ?? {}), ...definedOnly(changes.resolve ?? {}) };
    this.apply(trigger, resolve);
    this.updatedAt = now;
  }

  private apply(trigger: TriggerValues, resolve: ResolveValues | null): void {
    const problems: Array<{ field: string; problem: string }> = [];
    const required = (field: string, value: string | null | undefined, max: number): string => {
      if (value === undefined || value === null || value === '') problems.push({ field, problem: 'is required' });
      else if (value.length > max) problems.push({ field, problem: `must have at most ${max} characters` });
      return value ?? '';
    };
    const optional = (field: string, value: string | null | undefined, max: number): string | null => {
      if (value === undefined || value === null || value === '') return null;
      if (value.length > max) problems.push({ field, problem: `must have at most ${max} characters` });
      return value;
    };
    const payloadKey = required('trigger.payloadKey', trigger.payloadKey, KEY_MAX);
    const valueContains = required('trigger.valueContains', trigger.valueContains, TEXT_MAX);
    const titleFrom = required('trigger.titleFrom', trigger.titleFrom, KEY_MAX);
    const mapIncidentWith = optional('trigger.mapIncidentWith', trigger.mapIncidentWith, KEY_MAX);
    const descriptionFrom = optional('trigger.descriptionFrom', trigger.descriptionFrom, KEY_MAX);

    const given = resolve ? (['payloadKey', 'valueContains', 'incidentMappedWith'] as const).filter((k) => resolve[k] !== undefined && resolve[k] !== null && resolve[k] !== '') : [];
    let resolved: ResolveRule | null = null;
    if (given.length > 0 && given.length < 3) {
      const missing = (['payloadKey', 'valueContains', 'incidentMappedWith'] as const).filter((k) => !given.includes(k));
      problems.push({ field: 'resolve', problem: `needs all three values or none; missing ${missing.map((k) => `resolve.${k}`).join(', ')}` });
    } else if (given.length === 3 && resolve) {
      resolved = {
        payloadKey: required('resolve.payloadKey', resolve.payloadKey, KEY_MAX),
        valueContains: required('resolve.valueContains', resolve.valueContains, TEXT_MAX),
        incidentMappedWith: required('resolve.incidentMappedWith', resolve.incidentMappedWith, KEY_MAX),
      };
    }
    if (problems.length > 0) throw new FilterInvalidError(problems);

    this.triggerPayloadKey = payloadKey;
    this.triggerValueContains = valueContains;
    this.triggerTitleFrom = titleFrom;
    this.triggerMapIncidentWith = mapIncidentWith;
    this.triggerDescriptionFrom = descriptionFrom;
    this.resolvePayloadKey = resolved?.payloadKey ?? null;
    this.resolveValueContains = resolved?.valueContains ?? null;
    this.resolveIncidentMappedWith = resolved?.incidentMappedWith ?? null;
  }
}

/** The keys whose value is not undefined: what a partial edit gives. */
export function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
