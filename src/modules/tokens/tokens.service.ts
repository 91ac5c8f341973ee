import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { MikroORM } from '@mikro-orm/postgresql';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { listeningBaseUrl } from '../../config/transport.js';
import { EventBus } from '../../shared/events/event-bus.js';
import { isUuid } from '../../shared/ids.js';
import { TtlCache } from '../../shared/cache/ttl-cache.js';
import { decodeCursor, olderThan, PAGE_LIMIT_DEFAULT, toPage, type Page } from '../../shared/http/pagination.js';
import { TokensFacade, type AuthenticatedToken } from './tokens.facade.js';
import { ApiToken } from './domain/api-token.entity.js';
import { TokenNotFoundError } from './domain/token.errors.js';
import { generateTokenSecret, hashTokenSecret, looksLikeTokenSecret } from './domain/token-secret.js';
import { buildEndpointSettings, type EndpointSettings } from './domain/endpoint-settings.js';
import { toTokenDto, type CreatedTokenDto, type CreateTokenDto, type TokenDto, type UpdateTokenDto } from './http/dto/token.dto.js';

/** `lastUsedAt` is written at most this often per token, to keep a write off every intake call. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** How long a token found by its secret is kept in memory (see authenticate). */
export const TOKEN_CACHE_TTL_MS = 2_000;
/** From this age a cached token is reloaded in the background while calls go on using it. */
const TOKEN_CACHE_REFRESH_AFTER_MS = 1_500;

interface CachedToken {
  id: string;
  name: string;
  debugExpiresAt: number | null;
  rateLimitPerMinute: number | null;
  lastUsedAt: number;
}


@Injectable()
export class TokensService implements TokensFacade {
  constructor(
    private readonly orm: MikroORM,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  private readonly cache = new TtlCache<string, CachedToken>(TOKEN_CACHE_TTL_MS, { refreshAfterMs: TOKEN_CACHE_REFRESH_AFTER_MS });

  /** Forgets a changed token, so this instance sees the change at once. */
  private evict(tokenId: string): void {
    this.cache.deleteWhere((cached) => cached.id === tokenId);
  }

  async create(input: CreateTokenDto): Promise<CreatedTokenDto> {
    const em = this.orm.em.fork();
    const now = new Date();
    const secret = generateTokenSecret();
    const token = new ApiToken(input.name, hashTokenSecret(secret), now);
    if (input.debug) token.enableDebug(now, this.config.debugTtlMs);
    token.rateLimitPerMinute = input.rateLimitPerMinute ?? null;
    await em.persist(token).flush();
    await this.events.publish('TokenCreated', { tokenId: token.id, name: token.name, debug: token.isDebugActive(now) });
    const endpointSettings = buildEndpointSettings({ tokenId: token.id, baseUrl: this.publicBaseUrl(), secret });
    return { ...toTokenDto(token, now), token: secret, endpointSettings };
  }

  async list(query: { limit?: number; cursor?: string }): Promise<Page<TokenDto>> {
    const limit = query.limit ?? PAGE_LIMIT_DEFAULT;
    const cursor = decodeCursor(query.cursor);
    const rows = await this.orm.em.fork().find(
      ApiToken,
      { revokedAt: null, ...olderThan('createdAt', cursor) },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: limit + 1 },
    );
    const now = new Date();
    return toPage(rows, limit, (t) => t.createdAt, (t) => toTokenDto(t, now));
  }

  async get(id: string): Promise<TokenDto> {
    const token = await this.findLive(this.orm.em.fork(), id);
    return toTokenDto(token, new Date());
  }

  /** The token's endpoint settings, the secret as a placeholder (only its hash is kept). */
  async endpointSettings(id: string): Promise<EndpointSettings> {
    const token = await this.findLive(this.orm.em.fork(), id);
    return buildEndpointSettings({ tokenId: token.id, baseUrl: this.publicBaseUrl() });
  }

  /** PUBLIC_BASE_URL, or the address the server listens on (its real port when PORT=0). */
  private publicBaseUrl(): string {
    if (this.config.publicBaseUrl) return this.config.publicBaseUrl;
    const address = this.adapterHost.httpAdapter?.getHttpServer()?.address();
    const port = typeof address === 'object' && address ? address.port : this.config.port;
    return listeningBaseUrl(this.config.host, port, this.config.tls !== null);
  }

  async update(id: string, input: UpdateTokenDto): Promise<TokenDto> {
    const em = this.orm.em.fork();
    const token = await this.findLive(em, id);
    const now = new Date();
    if (input.name !== undefined) token.rename(input.name);
    if (input.rateLimitPerMinute !== undefined) token.rateLimitPerMinute = input.rateLimitPerMinute;
    if (input.debug === true) token.enableDebug(now, this.config.debugTtlMs);
    if (input.debug === false) token.disableDebug();
    await em.flush();
    this.evict(token.id);
    if (input.debug !== undefined) {
      await this.events.publish('TokenDebugChanged', {
        tokenId: token.id,
        debug: token.isDebugActive(now),
        debugExpiresAt: token.debugExpiresAt?.toISOString() ?? null,
      });
    }
    return toTokenDto(token, now);
  }

  /** Revokes: the token disappears from the API and its secret stops working at once. */
  async revoke(id: string): Promise<void> {
    const em = this.orm.em.fork();
    const token = await this.findLive(em, id);
    token.revoke(new Date());
    await em.flush();
    this.evict(token.id);
    await this.events.publish('TokenRevoked', { tokenId: token.id });
  }

  /**
   * The live token of a secret. Found tokens are cached for TOKEN_CACHE_TTL_MS; a change made
   * here (rename, debug, rate limit, revoke) evicts it at once, one made through another instance
   * is seen within that time. Unknown secrets are not cached. Calls that miss at once share one
   * query, and a token in use is reloaded in the background before it expires (TtlCache).
   */
  async authenticate(secret: string): Promise<AuthenticatedToken | null> {
    if (!looksLikeTokenSecret(secret)) return null;
    const hash = hashTokenSecret(secret);
    const now = Date.now();
    const cached = await this.cache.getOrLoad(hash, () => this.loadToken(hash), now);
    if (!cached) return null;
    if (now - cached.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
      cached.lastUsedAt = now;
      await this.orm.em.fork().nativeUpdate(ApiToken, { id: cached.id }, { lastUsedAt: new Date(now) });
    }
    const debug = cached.debugExpiresAt !== null && cached.debugExpiresAt > now;
    return { id: cached.id, name: cached.name, debug, rateLimitPerMinute: cached.rateLimitPerMinute };
  }

  private async loadToken(hash: string): Promise<CachedToken | undefined> {
    const token = await this.orm.em.fork().findOne(ApiToken, { secretHash: hash, revokedAt: null });
    if (!token) return undefined;
    return {
      id: token.id,
      name: token.name,
      debugExpiresAt: token.debugExpiresAt?.getTime() ?? null,
      rateLimitPerMinute: token.rateLimitPerMinute,
      lastUsedAt: token.lastUsedAt?.getTime() ?? 0,
    };
  }

  /**
   * Switches expired debug windows off and publishes TokenDebugExpired for each. One UPDATE ...
   * RETURNING claims the rows, so with several instances each token is switched off (and
   * announced) exactly once. Reads already show `debug: false` before this runs.
   */
  async expireDebugWindows(now = new Date()): Promise<string[]> {
    const rows = await this.orm.em
      .fork()
      .execute<Array<{ id: string; debug_expires_at: Date }>>(
        `update api_tokens t set debug_enabled_at = null, debug_expires_at = null
         from (select id, debug_expires_at from api_tokens where debug_expires_at <= ? for update skip locked) expired
         where t.id = expired.id
         returning t.id, expired.debug_expires_at`,
        [now],
      );
    for (const row of rows) {
      await this.events.publish('TokenDebugExpired', { tokenId: row.id, debugExpiredAt: new Date(row.debug_expires_at).toISOString() });
    }
    return rows.map((row) => row.id);
  }

  async assertExists(tokenId: string): Promise<void> {
    await this.findLive(this.orm.em.fork(), tokenId);
  }

  private async findLive(em: MikroORM['em'], id: string): Promise<ApiToken> {
    const token = isUuid(id) ? await em.findOne(ApiToken, { id, revokedAt: null }) : null;
    if (!token) throw new TokenNotFoundError(id);
    return token;
  }
}
