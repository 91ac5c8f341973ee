import { applyDecorators, Controller, Headers, HttpCode, Post, UseGuards } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBadRequestResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
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
import { IntakeService, type IntakeResult } from '../intake.service.js';

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
  );

@ApiTags('Intake')
@ApiBearerAuth(TOKEN_AUTH)
@UseGuards(ApiTokenGuard)
@Controller('v1')
export class IntakeController {
  constructor(private readonly intake: IntakeService) {}

  @Post('trace')
  @HttpCode(202)
  @ApiOperation({ summary: 'Tracing intake (Zipkin HTTP reporter)', description: 'A span object or an array of spans (JSON). `Content-Encoding: gzip` or `deflate` accepted. 202 once every effect is committed.' })
  @ApiConsumes('application/json')
  @ApiBody({ schema: { oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array', items: { type: 'object', additionalProperties: true } }] }, examples: { span: { value: spanExample }, spans: { value: [spanExample, { ...spanExample, status: 'completed' }] } } })
  @ApiAcceptedResponse({ type: IntakeResultDto })
  @IntakeErrors()
  trace(@CurrentToken() token: AuthenticatedToken, @RawRequestBody() body: RawBody, @Headers() headers: Record<string, string | undefined>): Promise<IntakeResult> {
    return this.intake.receive(token, '/v1/trace', body.bytes, { contentType: headers['content-type'], contentEncoding: headers['content-encoding'] });
  }

  @Post('alert')
  @HttpCode(202)
  @ApiOperation({ summary: 'Alert intake (generic webhook)', description: 'The webhook\'s custom body `{"body", "title", "link"}`, or any JSON object or array of objects. 202 once every effect is committed.' })
  @ApiConsumes('application/json')
  @ApiBody({ schema: { oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array', items: { type: 'object', additionalProperties: true } }] }, examples: { alert: { value: alertExample } } })
  @ApiAcceptedResponse({ type: IntakeResultDto })
  @IntakeErrors()
  alert(@CurrentToken() token: AuthenticatedToken, @RawRequestBody() body: RawBody, @Headers() headers: Record<string, string | undefined>): Promise<IntakeResult> {
    return this.intake.receive(token, '/v1/alert', body.bytes, { contentType: headers['content-type'], contentEncoding: headers['content-encoding'] });
  }
}
