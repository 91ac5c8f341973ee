import { Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { EventBus, OnDomainEvent } from '../../shared/events/event-bus.js';
import { decodeCursor, olderThan, PAGE_LIMIT_DEFAULT, toPage, type Page } from '../../shared/http/pagination.js';
import { isUuid } from '../../shared/ids.js';
import { TtlCache } from '../../shared/cache/ttl-cache.js';
import type { PayloadOutcome, PayloadReceived } from '../intake/contracts.js';
import { ApiLogFacade } from '../api-log/contracts.js';
import { TemplatesFacade } from '../templates/contracts.js';
import { TokensFacade } from '../tokens/contracts.js';
import type { FilterDecision } from './contracts.js';
import { FiltersFacade } from './filters.facade.js';
import { definedOnly, Filter, type ResolveValues, type TriggerValues } from './domain/filter.entity.js';
import { FilterNotFoundError } from './domain/filter.errors.js';
import { decideFilter, evaluateFilter, PayloadTexts, type Evaluation, type FilterRule } from './domain/filter-matcher.js';
import { BACKTEST_LIMIT_DEFAULT, toFilterDto, type CreateFilterDto, type DraftBacktestDto, type FilterDto, type UpdateFilterDto } from './http/dto/filter.dto.js';
import { backtest, type BacktestResult } from './domain/backtest.js';

/** How long a token's filters are kept in memory for the intake (see rulesOf). */
export const RULES_CACHE_TTL_MS = 2_000;
/** From this age a token's cached filters are reloaded in the background while calls go on using them. */
const RULES_CACHE_REFRESH_AFTER_MS = 1_500;

@Injectable()
export class FiltersService implements FiltersFacade {
  constructor(
    private readonly orm: MikroORM,
    private readonly events: EventBus,
    private readonly tokens: TokensFacade,
    private readonly templates: TemplatesFacade,
    private readonly apiLog: ApiLogFacade,
  ) {}

  private readonly rules = new TtlCache<string, FilterRule[]>(RULES_CACHE_TTL_MS, { refreshAfterMs: RULES_CACHE_REFRESH_AFTER_MS });

  /** A template fills every value; each value given beside it replaces that one value. */
  async create(input: CreateFilterDto): Promise<FilterDto> {
    const template = input.template !== undefined ? this.templates.get(input.template) : null;
    await this.tokens.assertExists(input.tokenId);
    const trigger: TriggerValues = { ...template?.trigger, ...definedOnly(input.trigger ?? {}) };
    const resolve: ResolveValues | null =
      input.resolve === null ? null : { ...template?.resolve, ...definedOnly(input.resolve ?? {}) };
    const filter = new Filter(input.tokenId, input.name ?? null, template?.id ?? null, trigger, resolve, new Date());
    await this.orm.em.fork().persist(filter).flush();
    this.rules.delete(filter.tokenId);
    await this.events.publish('FilterCreated', { filterId: filter.id, tokenId: filter.tokenId });
    return toFilterDto(filter);
  }

  async list(query: { tokenId?: string; limit?: number; cursor?: string }): Promise<Page<FilterDto>> {
    const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
    const cursor = decodeCursor(query.cursor);
    const rows = await this.orm.em.fork().find(
      Filter,
      { ...(query.tokenId ? { tokenId: query.tokenId } : {}), ...olderThan('createdAt', cursor) },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: limit + 1 },
    );
    return toPage(rows, limit, (f) => f.createdAt, toFilterDto);
  }

  async get(id: string): Promise<FilterDto> {
    return toFilterDto(await this.find(this.orm.em.fork(), id));
  }

  async update(id: string, input: UpdateFilterDto): Promise<FilterDto> {
    const em = this.orm.em.fork();
    const filter = await this.find(em, id);
    filter.edit(input, new Date());
    await em.flush();
    this.rules.delete(filter.tokenId);
    await this.events.publish('FilterUpdated', { filterId: filter.id, tokenId: filter.tokenId });
    return toFilterDto(filter);
  }

  /** Deletes the filter; its incidents stay (open ones can be resolved by hand). */
  async remove(id: string): Promise<void> {
    const em = this.orm.em.fork();
    const filter = await this.find(em, id);
    await em.remove(filter).flush();
    this.rules.delete(filter.tokenId);
    await this.events.publish('FilterDeleted', { filterId: filter.id, tokenId: filter.tokenId });
  }

  /** Dry run: what the filter would do with this payload. Writes nothing. */
  async dryRun(id: string, payload: Record<string, unknown>): Promise<Evaluation> {
    const filter = await this.find(this.orm.em.fork(), id);
    return evaluateFilter(filter.toRule(), payload);
  }

  /** Replays the token's newest logged payloads through the saved filter. Writes nothing. */
  async backtestSaved(id: string, limit = BACKTEST_LIMIT_DEFAULT): Promise<BacktestResult> {
    const filter = await this.find(this.orm.em.fork(), id);
    return backtest(filter.toRule(), await this.apiLog.recentPayloads(filter.tokenId, limit));
  }

  /** The same for a filter not yet saved: its values are checked as on create. */
  async backtestDraft(input: DraftBacktestDto): Promise<BacktestResult> {
    await this.tokens.assertExists(input.tokenId);
    const draft = new Filter(input.tokenId, null, null, definedOnly(input.trigger), input.resolve === null ? null : definedOnly(input.resolve ?? {}), new Date());
    return backtest(draft.toRule(), await this.apiLog.recentPayloads(input.tokenId, input.limit ?? BACKTEST_LIMIT_DEFAULT));
  }

  async assertExists(filterId: string): Promise<void> {
    await this.find(this.orm.em.fork(), filterId);
  }

  /** Evaluates the token's filters on each payload and has the decisions carried out. */
  @OnDomainEvent('PayloadReceived')
  async onPayloadReceived(event: PayloadReceived): Promise<PayloadOutcome[]> {
    const rules = await this.rulesOf(event.tokenId);
    const decisions = event.payloads.map((payload) => {
      const texts = new PayloadTexts(payload);
      return rules.map((rule): FilterDecision => ({ filterId: rule.id, filterName: rule.name, ...decideFilter(rule, payload, texts) }));
    });
    return this.events.request('PayloadEvaluated', { tokenId: event.tokenId, receivedAt: event.receivedAt, decisions });
  }

  /**
   * The token's filters as rules, oldest first. Cached for RULES_CACHE_TTL_MS: a change made here
   * evicts the token's rules at once; one made through another instance is seen within that time.
   * Calls that miss at once share one query; rules in use are reloaded in the background (TtlCache).
   */
  private async rulesOf(tokenId: string): Promise<FilterRule[]> {
    return this.rules.getOrLoad(tokenId, async () => {
      const filters = await this.orm.em.fork().find(Filter, { tokenId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
      return filters.map((f) => f.toRule());
    });
  }

  private async find(em: MikroORM['em'], id: string): Promise<Filter> {
    const filter = isUuid(id) ? await em.findOne(Filter, { id }) : null;
    if (!filter) throw new FilterNotFoundError(id);
    return filter;
  }
}
