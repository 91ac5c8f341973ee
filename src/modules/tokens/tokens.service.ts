import { Inject, Injectable } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { EventBus } from '../../shared/events/event-bus.js';
import { isUuid } from '../../shared/ids.js';
import { decodeCursor, olderThan, PAGE_LIMIT_DEFAULT, toPage, type Page } from '../../shared/http/pagination.js';
import { TokensFacade, type AuthenticatedToken } from './tokens.facade.js';
import { ApiToken } from './domain/api-token.entity.js';
import { TokenNotFoundError } from './domain/token.errors.js';
import { generateTokenSecret, hashTokenSecret, looksLikeTokenSecret } from './domain/token-secret.js';
import { toTokenDto, type CreatedTokenDto, type CreateTokenDto, type TokenDto, type UpdateTokenDto } from './http/dto/token.dto.js';

/** `lastUsedAt` is written at most this often per token, to keep a write off every intake call. */
const LAST_USED_RESOLUTION_MS = 60_000;

@Injectable()
export class TokensService implements TokensFacade {
  constructor(
    private readonly orm: MikroORM,
    private readonly events: EventBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(input: CreateTokenDto): Promise<CreatedTokenDto> {
    const em = this.orm.em.fork();
    const now = new Date();
    const secret = generateTokenSecret();
    const token = new ApiToken(input.name, hashTokenSecret(secret), now);
    if (input.debug) token.enableDebug(now, this.config.debugTtlMs);
    token.rateLimitPerMinute = input.rateLimitPerMinute ?? null;
    await em.persist(token).flush();
    await this.events.publish('TokenCreated', { tokenId: token.id, name: token.name, debug: token.isDebugActive(now) });
    return { ...toTokenDto(token, now), token: secret };
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

  async update(id: string, input: UpdateTokenDto): Promise<TokenDto> {
    const em = this.orm.em.fork();
    const token = await this.findLive(em, id);
    const now = new Date();
    if (input.name !== undefined) token.rename(input.name);
    if (input.rateLimitPerMinute !== undefined) token.rateLimitPerMinute = input.rateLimitPerMinute;
    if (input.debug === true) token.enableDebug(now, this.config.debugTtlMs);
    if (input.debug === false) token.disableDebug();
    await em.flush();
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
    await this.events.publish('TokenRevoked', { tokenId: token.id });
  }

  async authenticate(secret: string): Promise<AuthenticatedToken | null> {
    if (!looksLikeTokenSecret(secret)) return null;
    const em = this.orm.em.fork();
    const token = await em.findOne(ApiToken, { secretHash: hashTokenSecret(secret), revokedAt: null });
    if (!token) return null;
    const now = new Date();
    if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
      await em.nativeUpdate(ApiToken, { id: token.id }, { lastUsedAt: now });
    }
    return { id: token.id, name: token.name, debug: token.isDebugActive(now), rateLimitPerMinute: token.rateLimitPerMinute };
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
