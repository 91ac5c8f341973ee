import { createHash } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { MikroORM } from '@mikro-orm/postgresql';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { EventBus } from '../../shared/events/event-bus.js';
import { toErrorBody } from '../../shared/http/exception.filter.js';
import { releaseBuffer, type RawBody } from '../../shared/http/body-parsers.js';
import { MAX_BODY_BYTES } from '../../shared/http/limits.js';
import type { AuthenticatedToken } from '../tokens/contracts.js';
import type { BodyKind, IntakeCallCompleted, PayloadOutcome } from './contracts.js';
import { PayloadTooLargeError } from '../../shared/errors/body-errors.js';
import { decompressIntakeBody, parseIntakeBodyInSteps, type IntakeHeaders } from './domain/intake-body.js';
import { runInSlices } from '../../shared/work/slices.js';
import { ByteBudget, type Release } from '../../shared/http/byte-budget.js';
import { IdempotencyKeyReusedError, RateLimitedError, readIdempotencyKey } from './domain/intake.errors.js';
import { RateLimiter } from './domain/rate-limiter.js';
import { headersWithoutCredentials } from './domain/request-headers.js';
import { claimIdempotencyKey, recordIdempotentResponse } from './idempotency.store.js';
import { inTransaction } from '../../shared/database/transaction.js';

export interface IntakeResult {
  received: number;
  payloads: PayloadOutcome[];
}

export interface IntakeAnswer {
  result: IntakeResult;
  /** The answer of an earlier call with the same Idempotency-Key, replayed; nothing was done. */
  replayed: boolean;
}

export interface IntakeCall {
  token: AuthenticatedToken;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: RawBody;
}

// Peak memory (docs/DECISIONS.md, "Memory"): bodies above 64 KiB are parsed and evaluated within
// 8 MiB at once (one of the largest, 5 MiB, plus a few medium ones); smaller ones never wait.
const BODY_BUDGET_BYTES = 8 * 1024 * 1024;
const SMALL_BODY_BYTES = 64 * 1024;
// A large body's parsing gives the event loop back every 10 ms: other calls, and database replies
// (a connection being opened has a 1.5 s timeout), are not held up for the whole body.
const PARSE_SLICE_MS = 10;

const header = (headers: IntakeCall['headers'], name: string) => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

@Injectable()
export class IntakeService {
  private readonly logger = new Logger(IntakeService.name);
  private readonly limiter = new RateLimiter();
  private readonly bodies = new ByteBudget(BODY_BUDGET_BYTES, SMALL_BODY_BYTES);

  constructor(
    private readonly events: EventBus,
    private readonly orm: MikroORM,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Checks the rate limit, decodes the body and publishes PayloadReceived; returns once every
   * effect is committed. With an Idempotency-Key the effects and the key are committed together,
   * and a repeat answers the first response. Every call, accepted or rejected, is reported as
   * IntakeCallCompleted before the answer (API log).
   */
  async receive(call: IntakeCall): Promise<IntakeAnswer> {
    const admitted: { release: Release; json?: Buffer } = { release: () => undefined };
    try {
      return await this.receiveAdmitted(call, admitted);
    } finally {
      // However the call ended: the byte budget back, and a large body's bytes freed now.
      admitted.release();
      if (admitted.json) releaseBuffer(admitted.json);
      call.body.release();
    }
  }

  private async receiveAdmitted(call: IntakeCall, admitted: { release: Release; json?: Buffer }): Promise<IntakeAnswer> {
    const receivedAt = new Date();
    const body: { kind: BodyKind; text: string | null } = { kind: 'none', text: null };
    const report = (statusCode: number, outcome: PayloadOutcome[] | null, error: IntakeCallCompleted['error']) =>
      this.report({
        tokenId: call.token.id,
        debug: call.token.debug,
        receivedAt,
        method: call.method,
        path: call.path,
        statusCode,
        headers: call.token.debug ? headersWithoutCredentials(call.headers) : {},
        bodyKind: body.kind,
        body: body.text,
        outcome,
        error,
      });
    let answer: IntakeAnswer;
    try {
      this.checkRateLimit(call.token, receivedAt);
      const key = readIdempotencyKey(header(call.headers, 'idempotency-key'));
      if (call.body.tooLarge) throw new PayloadTooLargeError(`body exceeds ${MAX_BODY_BYTES} bytes`);
      const headers: IntakeHeaders = { contentType: header(call.headers, 'content-type'), contentEncoding: header(call.headers, 'content-encoding') };
      // The text only for the API log (a token in debug mode): without it, a large array is parsed
      // in groups of elements and its whole text never made (docs/DECISIONS.md, "Memory").
      const onText = !call.token.debug
        ? null
        : (text: string, isJson: boolean) => {
            body.kind = isJson ? 'json' : 'text';
            body.text = text;
          };
      const json = (admitted.json = decompressIntakeBody(call.body.bytes, headers, onText));
      admitted.release = await this.bodies.acquire(json.length);
      const payloads = await runInSlices(parseIntakeBodyInSteps(json, onText), { sliceMs: PARSE_SLICE_MS });
      const evaluate = async (): Promise<IntakeResult> => ({
        received: payloads.length,
        payloads: payloads.length === 0 ? [] : await this.events.request('PayloadReceived', { tokenId: call.token.id, path: call.path, receivedAt, payloads }),
      });
      answer = key === null ? { result: await evaluate(), replayed: false } : await this.once(call, key, receivedAt, evaluate);
    } catch (error) {
      const { body: errorBody } = toErrorBody(error);
      await report(errorBody.statusCode, null, { code: errorBody.code ?? null, message: errorBody.message });
      throw error;
    }
    await report(202, answer.result.payloads, null);
    return answer;
  }

  /** A token's own limit wins over INTAKE_RATE_LIMIT; neither set means no limit. */
  private checkRateLimit(token: AuthenticatedToken, now: Date): void {
    const perMinute = token.rateLimitPerMinute ?? this.config.intakeRateLimit;
    if (perMinute === null) return;
    const decision = this.limiter.take(token.id, perMinute, now.getTime());
    if (!decision.allowed) throw new RateLimitedError(perMinute, decision.retryAfterSeconds);
  }

  /** Runs `evaluate` at most once per token and key within 24 hours, in one transaction with the key. */
  private once(call: IntakeCall, key: string, now: Date, evaluate: () => Promise<IntakeResult>): Promise<IntakeAnswer> {
    const requestHash = createHash('sha256').update(call.path).update('\n').update(call.body.bytes).digest('hex');
    return inTransaction(this.orm, async (em) => {
      const claim = await claimIdempotencyKey(em, call.token.id, key, requestHash, now);
      if (claim.kind === 'mismatch') throw new IdempotencyKeyReusedError();
      if (claim.kind === 'replay') return { result: claim.response as IntakeResult, replayed: true };
      const result = await evaluate();
      await recordIdempotentResponse(em, call.token.id, key, 202, result);
      return { result, replayed: false };
    });
  }

  /** The effects are committed by now: a failure to report must not turn the answer into an error. */
  private async report(event: IntakeCallCompleted): Promise<void> {
    try {
      await this.events.publish('IntakeCallCompleted', event);
    } catch (error) {
      this.logger.error(`could not record the intake call of token ${event.tokenId}: ${(error as Error).message}`);
    }
  }
}
