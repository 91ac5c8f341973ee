import { Inject, Injectable, Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { WriteBatcher } from '../../shared/database/write-batcher.js';
import { EventBus, OnDomainEvent } from '../../shared/events/event-bus.js';
import { NotFoundError } from '../../shared/errors/domain-error.js';
import { decodeCursor, olderThan, PAGE_LIMIT_DEFAULT, toPage, type Page } from '../../shared/http/pagination.js';
import { isUuid } from '../../shared/ids.js';
import { isJsonObject, parseJsonPreservingNumbers } from '../../shared/json/json-text.js';
import type { IntakeCallCompleted, JsonObject } from '../intake/contracts.js';
import { ApiLogFacade, type LoggedPayloads } from './api-log.facade.js';
import { ApiLogEntry } from './domain/api-log-entry.entity.js';
import { insertEntries } from './api-log.store.js';
import { toApiLogEntryDto, type ApiLogEntryDto, type ListApiLogQueryDto } from './http/dto/api-log.dto.js';

/** Rows deleted per statement by the retention job, so it never holds long locks. */
export const RETENTION_BATCH = 1000;
/** Log-writing statements an instance runs at once; calls beyond share them (group commit). */
const LOG_WRITES_AT_ONCE = 2;

export class ApiLogEntryNotFoundError extends NotFoundError {
  constructor(id: string) {
    super('API_LOG_ENTRY_NOT_FOUND', 'API log entry', id);
  }
}

@Injectable()
export class ApiLogService implements ApiLogFacade {
  private readonly logger = new Logger('ApiLog');

  constructor(
    private readonly orm: MikroORM,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * The log rows of calls that complete while earlier rows are being written go in together, as one
   * multi-row insert (one commit); each call still answers only after its row is committed.
   */
  private readonly batcher = new WriteBatcher<ApiLogEntry, void>(async (entries) => {
    await insertEntries(this.orm.em.fork(), entries);
    return entries.map(() => undefined);
  }, LOG_WRITES_AT_ONCE);

  /** Stores the call when the token's debug window was open as it arrived. */
  @OnDomainEvent('IntakeCallCompleted')
  async onIntakeCallCompleted(call: IntakeCallCompleted): Promise<void> {
    if (!call.debug) return;
    const entry = Object.assign(new ApiLogEntry(), {
      tokenId: call.tokenId,
      receivedAt: call.receivedAt,
      method: call.method,
      path: call.path.slice(0, 2048),
      statusCode: call.statusCode,
      headers: call.headers,
      bodyKind: call.bodyKind,
      body: call.body === null ? null : call.body.replaceAll('\u0000', '\uFFFD'),
      outcome: call.outcome,
      // A JSON parse error quotes the body, NUL bytes included; jsonb cannot hold U+0000 either.
      error: call.error === null ? null : { ...call.error, message: call.error.message.replaceAll('\u0000', '\uFFFD') },
    });
    await this.batcher.submit(entry);
    await this.events.publish('ApiLogEntryWritten', { entryId: entry.id, tokenId: entry.tokenId, statusCode: entry.statusCode });
  }

  async list(query: ListApiLogQueryDto): Promise<Page<ApiLogEntryDto>> {
    const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
    const cursor = decodeCursor(query.cursor);
    const receivedAt = {
      ...(query.since ? { $gte: query.since } : {}),
      ...(query.until ? { $lt: query.until } : {}),
    };
    const where = {
      ...(query.tokenId ? { tokenId: query.tokenId } : {}),
      ...(query.statusCode ? { statusCode: query.statusCode } : {}),
      ...(Object.keys(receivedAt).length > 0 ? { receivedAt } : {}),
      ...olderThan('receivedAt', cursor),
    };
    const rows = await this.orm.em.fork().find(ApiLogEntry, where, { orderBy: { receivedAt: 'desc', id: 'desc' }, limit: limit + 1 });
    return toPage(rows, limit, (e) => e.receivedAt, toApiLogEntryDto);
  }

  async get(id: string): Promise<ApiLogEntryDto> {
    const entry = isUuid(id) ? await this.orm.em.fork().findOne(ApiLogEntry, { id }) : null;
    if (!entry) throw new ApiLogEntryNotFoundError(id);
    return toApiLogEntryDto(entry);
  }

  async recentPayloads(tokenId: string, limit: number): Promise<LoggedPayloads[]> {
    const rows = await this.orm.em.fork().find(
      ApiLogEntry,
      { tokenId, bodyKind: 'json' },
      { orderBy: { receivedAt: 'desc', id: 'desc' }, limit, fields: ['id', 'receivedAt', 'body'] },
    );
    return rows.map((row) => ({ logEntryId: row.id, receivedAt: row.receivedAt, payloads: payloadsOf(row.body) }));
  }

  /** Deletes entries older than API_LOG_RETENTION in bounded batches; safe on several instances. */
  async pruneExpired(now = new Date()): Promise<number> {
    const cutoff = new Date(now.getTime() - this.config.apiLogRetentionMs);
    const em = this.orm.em.fork();
    let total = 0;
    for (;;) {
      const deleted = await em.execute<{ affectedRows: number }>(
        `delete from api_log where id in (select id from api_log where received_at < ? order by received_at limit ? for update skip locked)`,
        [cutoff, RETENTION_BATCH],
        'run',
      );
      total += deleted.affectedRows;
      if (deleted.affectedRows < RETENTION_BATCH) break;
    }
    if (total > 0) this.logger.log(`deleted ${total} API log entries older than ${cutoff.toISOString()}`);
    return total;
  }
}

/**
 * The payloads of a logged JSON body, as the intake reads them: an object, or an array whose
 * elements are all objects; any other body was rejected live and has none to replay.
 */
function payloadsOf(body: string | null): JsonObject[] {
  if (body === null) return [];
  let value: unknown;
  try {
    value = parseJsonPreservingNumbers(body);
  } catch {
    return [];
  }
  if (isJsonObject(value)) return [value];
  return Array.isArray(value) && value.every(isJsonObject) ? value : [];
}
