import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { IsOmittable } from './validation.js';
import { InvalidInputError } from '../errors/domain-error.js';
import { isUuid } from '../ids.js';

export const PAGE_LIMIT_DEFAULT = 50;
export const PAGE_LIMIT_MAX = 500;

/** `limit` and `cursor` of every list endpoint. */
export class PageQueryDto {
  @ApiPropertyOptional({ minimum: 1, maximum: PAGE_LIMIT_MAX, default: PAGE_LIMIT_DEFAULT, description: 'Items per page' })
  @IsOmittable()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(PAGE_LIMIT_MAX)
  limit?: number;

  @ApiPropertyOptional({ description: 'The `nextCursor` of the previous page' })
  @IsOmittable()
  @IsString()
  @MaxLength(200)
  cursor?: string;
}

/** Where a page starts: after the item with this time and id, in newest-first order. */
export interface Cursor {
  at: Date;
  id: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.at.toISOString(), cursor.id])).toString('base64url');
}

export function decodeCursor(text: string | undefined): Cursor | null {
  if (text === undefined) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && isUuid(value[1])) {
      const at = new Date(value[0]);
      if (!Number.isNaN(at.getTime())) return { at, id: value[1] };
    }
  } catch {
    // fall through
  }
  throw new InvalidInputError('CURSOR_INVALID', 'cursor is not valid; pass the nextCursor of a previous page');
}

/**
 * The MikroORM condition for "older than the cursor" in (time desc, id desc) order, so a page
 * stays correct while newer rows arrive.
 */
export function olderThan<K extends string>(timeField: K, cursor: Cursor | null): Record<string, unknown> {
  if (!cursor) return {};
  return { $or: [{ [timeField]: { $lt: cursor.at } }, { [timeField]: cursor.at, id: { $lt: cursor.id } }] };
}

/** Cuts the `limit + 1` rows fetched into a page and the cursor of the next one. */
export function toPage<E extends { id: string }, T>(rows: E[], limit: number, time: (row: E) => Date, view: (row: E) => T): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items: items.map(view),
    nextCursor: rows.length > limit && last ? encodeCursor({ at: time(last), id: last.id }) : null,
  };
}

/** Swagger shape of `{ items, nextCursor }` for a given item DTO. */
export function PageOf<T>(item: new () => T, name: string): new () => Page<T> {
  class PageDto {
    @ApiProperty({ type: item, isArray: true })
    items!: T[];

    @ApiProperty({ type: String, nullable: true, description: 'Pass as `cursor` for the next page; null on the last page' })
    nextCursor!: string | null;
  }
  Object.defineProperty(PageDto, 'name', { value: name });
  return PageDto;
}
