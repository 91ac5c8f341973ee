import { applyDecorators, Controller, Headers, HttpCode, Post, Res, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiHeader,
  ApiServiceUnavailableResponse,
  ApiTooManyRequestsResponse,
  ApiUnprocessableEntityResponse,
  ApiOperation,
  ApiPayloadTooLargeResponse,
  ApiProperty,
  ApiTags,
  ApiUnauthorizedResponse,
  ApiUnsupportedMediaTypeResponse,
} from '@nestjs/swagger';
import { TOKEN_AUTH } from '../../../shared/auth/admin-key.guard.js';
import { RawRequestBody, type RawBody } from '../../../shared/http/body-parsers.js';
import { ErrorResponseDto } from '../../../shared/http/error-response.dto.js';
import { ApiTokenGuard, CurrentToken, type AuthenticatedToken } from '../../tokens/contracts.js';
import { IntakeService, type IntakeAnswer, type IntakeResult } from '../intake.service.js';
import type { FastifyReply } from 'fastify';

class FilterOutcomeDto {
  @ApiProperty({ format: 'uuid' }) filterId!: string;
  @ApiProperty({ type: String, nullable: true }) filterName!: string | null;
  @ApiProperty({ enum: ['created', 'deduplicated', 'resolved', 'no-open-incident', 'unmatched'] }) action!: string;
  @ApiProperty({ type: String, format: 'uuid', nullable: true }) incidentId!: string | null;
}

class PayloadOutcomeDto {
  @ApiProperty({ description: 'Position of the payload in the body (0 for a single object)' }) index!: number;
  @ApiProperty({ type: FilterOutcomeDto, isArray: true, description: 'One entry per filter of the token' }) filters!: FilterOutcomeDto[];
}

class IntakeResultDto {
  @ApiProperty({ example: 1, description: 'Payloads evaluated' }) received!: number;
  @ApiProperty({ type: PayloadOutcomeDto, isArray: true }) payloads!: PayloadOutcomeDto[];
}

const spanExample = { traceId: '5af7183fb1d4cf5f', id: '6b221d5bc9e6496c', name: 'checkout', timestamp: 1732262400000000, duration: 1200, status: 'running' };
const alertExample = { title: 'Alert for "Job failures" - 12 lines found', body: 'Job failures in the last 5 minutes:\n```\nERROR job 42 failed\n```', link: 'https://alerts.example.com/a/123' };

const IntakeErrors = () =>
  applyDecorators(
  ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Malformed JSON, or not an object or array of objects' }),
  ApiUnauthorizedResponse({ type: ErrorResponseDto, description: 'Missing, unknown or revoked API token' }),
  ApiPayloadTooLargeResponse({ type: ErrorResponseDto, description: 'Body above 5242880 bytes, as sent or decompressed' }),
  ApiUnsupportedMediaTypeResponse({ type: ErrorResponseDto, description: 'Content-Type is not JSON, or an unsupported Content-Encoding' }),
  ApiUnprocessableEntityResponse({ type: ErrorResponseDto, description: 'The Idempotency-Key was used in the last 24 hours for a different request' }),
  ApiTooManyRequestsResponse({ type: ErrorResponseDto, description: 'Over the token\'s rate limit; see Retry-After', headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } } }),
  ApiServiceUnavailableResponse({ type: ErrorResponseDto, description: 'The database cannot be reached or is saturated; nothing was written; see Retry-After' }),
  ApiHeader({ name: 'Idempotency-Key', required: false, description: 'A repeat with the same key within 24 hours answers the first response and changes nothing' }),
  );

@ApiTags('Intake')
@ApiBearerAuth(TOKEN_AUTH)
@UseGuards(ApiTokenGuard)
@Controller('v1')
export class IntakeController {
  constructor(private readonly intake: IntakeService) {}

  /** A replayed answer (same Idempotency-Key) says so in a header. */
  private async answer(reply: FastifyReply, pending: Promise<IntakeAnswer>): Promise<IntakeResult> {
    const { result, replayed } = await pending;
    if (replayed) void reply.header('idempotent-replayed', 'true');
    return result;
  }

  @Post('trace')
  @HttpCode(202)
  @ApiOperation({ summary: 'Tracing intake (Zipkin HTTP reporter)', description: 'A span object or an array of spans (JSON). `Content-Encoding: gzip` or `deflate` accepted. 202 once every effect is committed.' })
  @ApiConsumes('application/json')
  @ApiBody({ schema: { oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array', items: { type: 'object', additionalProperties: true } }] }, examples: { span: { value: spanExample }, spans: { value: [spanExample, { ...spanExample, status: 'completed' }] } } })
  @ApiAcceptedResponse({ type: IntakeResultDto })
  @IntakeErrors()
  trace(
    @CurrentToken() token: AuthenticatedToken,
    @RawRequestBody() body: RawBody,
    @Headers() headers: Record<string, string | undefined>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IntakeResult> {
    return this.answer(reply, this.intake.receive({ token, method: 'POST', path: '/v1/trace', headers, body }));
  }

  @Post('alert')
  @HttpCode(202)
  @ApiOperation({ summary: 'Alert intake (generic webhook)', description: 'The webhook\'s custom body `{"body", "title", "link"}`, or any JSON object or array of objects. 202 once every effect is committed.' })
  @ApiConsumes('application/json')
  @ApiBody({ schema: { oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array', items: { type: 'object', additionalProperties: true } }] }, examples: { alert: { value: alertExample } } })
  @ApiAcceptedResponse({ type: IntakeResultDto })
  @IntakeErrors()
  alert(
    @CurrentToken() token: AuthenticatedToken,
    @RawRequestBody() body: RawBody,
    @Headers() headers: Record<string, string | undefined>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<IntakeResult> {
    return this.answer(reply, this.intake.receive({ token, method: 'POST', path: '/v1/alert', headers, body }));
  }
}
