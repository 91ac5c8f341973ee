import { ApiProperty } from '@nestjs/swagger';
import { MAX_BODY_BYTES } from '../../../../shared/http/limits.js';
import {
  ALERT_BODY_TEMPLATE,
  buildEndpointSettings,
  SECRET_PLACEHOLDER,
  type EndpointSettings,
  type IntakeHeaders,
  type ZipkinReporterProperties,
} from '../../domain/endpoint-settings.js';

/** The examples in the OpenAPI document are the real output for an example address. */
const EXAMPLE = buildEndpointSettings({ tokenId: '0b6f7c2e-4f1a-4c59-9d2b-3a8e5f6d7c10', baseUrl: 'https://intake.example.com' });

export class IntakeHeadersDto implements IntakeHeaders {
  @ApiProperty({ example: EXAMPLE.headers.Authorization, description: 'Bearer and the API token' })
  Authorization!: string;

  @ApiProperty({ example: 'application/json' })
  'Content-Type'!: string;
}

export class AuthorizationHeaderDto implements Pick<IntakeHeaders, 'Authorization'> {
  @ApiProperty({ example: EXAMPLE.headers.Authorization, description: 'Bearer and the API token' })
  Authorization!: string;
}

export class ZipkinReporterPropertiesDto implements ZipkinReporterProperties {
  @ApiProperty({ example: EXAMPLE.traceUrl, description: 'The trace intake URL' })
  'zipkin.reporter.http.endpoint'!: string;

  @ApiProperty({ example: true, description: 'JSON encoding (always true)' })
  'zipkin.reporter.http.json'!: boolean;

  @ApiProperty({ example: MAX_BODY_BYTES, description: 'The largest body the service accepts, in bytes' })
  'zipkin.reporter.http.messageMaxBytes'!: number;
}

export class ZipkinSettingsDto {
  @ApiProperty({ example: EXAMPLE.zipkin.properties, description: 'The reporter keys as a Java properties snippet, with the header as a comment' })
  properties!: string;

  @ApiProperty({ type: ZipkinReporterPropertiesDto, description: 'The same keys as JSON' })
  json!: ZipkinReporterPropertiesDto;

  @ApiProperty({ type: AuthorizationHeaderDto, description: 'The header the reporter sends on every request' })
  headers!: AuthorizationHeaderDto;
}

export class AlertWebhookSettingsDto {
  @ApiProperty({ example: EXAMPLE.alertUrl, description: 'The webhook URL (the alert intake)' })
  url!: string;

  @ApiProperty({ enum: ['POST'], example: 'POST' })
  method!: 'POST';

  @ApiProperty({ type: IntakeHeadersDto, description: 'Headers to add to the webhook' })
  headers!: IntakeHeadersDto;

  @ApiProperty({ example: ALERT_BODY_TEMPLATE, description: 'The custom body; the platform fills in {{body}}, {{title}} and {{link}}' })
  bodyTemplate!: string;

  @ApiProperty({ example: EXAMPLE.alertWebhook.description })
  description!: string;
}

export class CurlCommandsDto {
  @ApiProperty({ example: EXAMPLE.curl.trace, description: 'Sends one test span (status running) to the trace intake; POSIX shell quoting' })
  trace!: string;

  @ApiProperty({ example: EXAMPLE.curl.alert, description: 'Sends one test alert (title containing "Alert") to the alert intake; POSIX shell quoting' })
  alert!: string;
}

/** The token's intake addresses and ready-to-paste sender configuration. */
export class EndpointSettingsDto implements EndpointSettings {
  @ApiProperty({ format: 'uuid', example: EXAMPLE.tokenId })
  tokenId!: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: SECRET_PLACEHOLDER,
    description: 'The text that stands for the secret everywhere below; null when the secret itself is filled in (only in the answer to the token\'s creation)',
  })
  secretPlaceholder!: string | null;

  @ApiProperty({ example: EXAMPLE.baseUrl, description: 'PUBLIC_BASE_URL, or the address the service listens on' })
  baseUrl!: string;

  @ApiProperty({ example: EXAMPLE.traceUrl, description: 'Trace intake (Zipkin reporters)' })
  traceUrl!: string;

  @ApiProperty({ example: EXAMPLE.alertUrl, description: 'Alert intake (alert webhooks)' })
  alertUrl!: string;

  @ApiProperty({ type: IntakeHeadersDto, description: 'Headers every intake call takes' })
  headers!: IntakeHeadersDto;

  @ApiProperty({ type: ZipkinSettingsDto })
  zipkin!: ZipkinSettingsDto;

  @ApiProperty({ type: AlertWebhookSettingsDto })
  alertWebhook!: AlertWebhookSettingsDto;

  @ApiProperty({ type: CurlCommandsDto, description: 'One test call per intake endpoint, ready to paste into a shell' })
  curl!: CurlCommandsDto;
}
