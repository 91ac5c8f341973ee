import { MAX_BODY_BYTES } from '../../../shared/http/limits.js';

/** Stands for the secret in settings read after the token's creation. */
export const SECRET_PLACEHOLDER = '<API token>';

export const TRACE_PATH = '/v1/trace';
export const ALERT_PATH = '/v1/alert';

/** The alert webhook's custom body; the platform's own template variables replace the placeholders. */
export const ALERT_BODY_TEMPLATE = '{"body": "{{body}}", "title": "{{title}}", "link": "{{link}}"}';

export interface ZipkinReporterProperties {
  'zipkin.reporter.http.endpoint': string;
  'zipkin.reporter.http.json': boolean;
  'zipkin.reporter.http.messageMaxBytes': number;
}

export interface IntakeHeaders {
  Authorization: string;
  'Content-Type': string;
}

/** Where and how a sender delivers to the service with one token. */
export interface EndpointSettings {
  tokenId: string;
  /** The text standing for the secret, or null when the secret itself is filled in. */
  secretPlaceholder: string | null;
  baseUrl: string;
  traceUrl: string;
  alertUrl: string;
  headers: IntakeHeaders;
  zipkin: { properties: string; json: ZipkinReporterProperties; headers: Pick<IntakeHeaders, 'Authorization'> };
  alertWebhook: { url: string; method: 'POST'; headers: IntakeHeaders; bodyTemplate: string; description: string };
  curl: { trace: string; alert: string };
}

export interface EndpointSettingsInput {
  tokenId: string;
  /** The address senders use; trailing slashes are ignored. */
  baseUrl: string;
  /** The real secret (only when answering the token's creation); otherwise the placeholder is used. */
  secret?: string | null;
}

/** A span as a reporter sends it (an array), with `status` both top-level and as a Zipkin v2 tag. */
const EXAMPLE_SPANS = [
  {
    traceId: '5af7183fb1d4cf5f',
    id: '6b221d5bc9e6496c',
    name: 'endpoint-settings test span',
    timestamp: 1732262400000000,
    duration: 1200,
    localEndpoint: { serviceName: 'curl' },
    status: 'running',
    tags: { status: 'running' },
  },
];

/** POSIX shell single quoting: safe for any text, including quotes and `$`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A Java properties value: backslashes and anything outside printable ASCII escaped. */
function propertiesValue(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function curlLine(url: string, headers: IntakeHeaders, body: unknown): string {
  return [
    'curl -sS -X POST',
    shellQuote(url),
    ...Object.entries(headers).map(([name, value]) => `-H ${shellQuote(`${name}: ${value}`)}`),
    `--data-raw ${shellQuote(JSON.stringify(body))}`,
  ].join(' ');
}

/** The endpoint settings of one token: pure, so the same text is shown wherever it is asked for. */
export function buildEndpointSettings(input: EndpointSettingsInput): EndpointSettings {
  const baseUrl = input.baseUrl.replace(/\/+$/, '');
  const traceUrl = baseUrl + TRACE_PATH;
  const alertUrl = baseUrl + ALERT_PATH;
  const secret = input.secret ?? SECRET_PLACEHOLDER;
  const headers: IntakeHeaders = { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' };
  const json: ZipkinReporterProperties = {
    'zipkin.reporter.http.endpoint': traceUrl,
    'zipkin.reporter.http.json': true,
    'zipkin.reporter.http.messageMaxBytes': MAX_BODY_BYTES,
  };
  const properties = [
    ...Object.entries(json).map(([key, value]) => `${key}=${propertiesValue(String(value))}`),
    '# The reporter must send this header on every request:',
    `# Authorization: ${headers.Authorization}`,
  ].join('\n');
  const exampleAlert = {
    body: "It's a test alert sent with the curl line of the endpoint settings.",
    title: 'Alert: endpoint settings test',
    link: `${baseUrl}/docs`,
  };
  return {
    tokenId: input.tokenId,
    secretPlaceholder: input.secret ? null : SECRET_PLACEHOLDER,
    baseUrl,
    traceUrl,
    alertUrl,
    headers,
    zipkin: { properties: `${properties}\n`, json, headers: { Authorization: headers.Authorization } },
    alertWebhook: {
      url: alertUrl,
      method: 'POST',
      headers,
      bodyTemplate: ALERT_BODY_TEMPLATE,
      description:
        "Use as the generic webhook's custom body. Put the alerting platform's own template variables for the alert's body, " +
        'title and link where {{body}}, {{title}} and {{link}} stand, in the form that escapes text for JSON if the platform has one.',
    },
    curl: { trace: curlLine(traceUrl, headers, EXAMPLE_SPANS), alert: curlLine(alertUrl, headers, exampleAlert) },
  };
}
