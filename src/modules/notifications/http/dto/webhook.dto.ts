import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayNotEmpty, ArrayUnique, IsArray, IsIn, IsOptional, IsString, IsUrl, Length, Matches, MaxLength } from 'class-validator';
import { PageOf, PageQueryDto } from '../../../../shared/http/pagination.js';
import { IsOmittable } from '../../../../shared/http/validation.js';
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDelivery } from '../../domain/webhook-delivery.entity.js';
import { WEBHOOK_EVENTS, type WebhookEventName } from '../../domain/webhook-message.js';
import { WEBHOOK_NAME_MAX, WEBHOOK_SECRET_MAX, WEBHOOK_SECRET_MIN, WEBHOOK_URL_MAX, type WebhookSubscription } from '../../domain/webhook-subscription.entity.js';

const URL_OPTIONS = { protocols: ['http', 'https'], require_protocol: true, require_valid_protocol: true, require_tld: false, disallow_auth: true };
const URL_MESSAGE = 'url must be an http:// or https:// URL without credentials';
const SECRET_PATTERN = /^[\x21-\x7e]+$/;
const SECRET_MESSAGE = 'secret must be visible ASCII characters without spaces';

export class CreateWebhookDto {
  @ApiProperty({ maxLength: WEBHOOK_URL_MAX, example: 'https://hooks.example.com/incidents', description: 'Where the events are POSTed; http:// or https://' })
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX)
  @IsUrl(URL_OPTIONS, { message: URL_MESSAGE })
  url!: string;

  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true, example: ['IncidentCreated', 'IncidentResolved'], description: 'The events to receive' })
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(WEBHOOK_EVENTS.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENTS, { each: true })
  events!: WebhookEventName[];

  @ApiPropertyOptional({
    minLength: WEBHOOK_SECRET_MIN,
    maxLength: WEBHOOK_SECRET_MAX,
    description: 'The HMAC key the deliveries are signed with. Left out: 32 random bytes are generated (`whsec_…`). Answered only by this call.',
  })
  @IsOmittable()
  @IsString()
  @Length(WEBHOOK_SECRET_MIN, WEBHOOK_SECRET_MAX)
  @Matches(SECRET_PATTERN, { message: SECRET_MESSAGE })
  secret?: string;

  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: WEBHOOK_NAME_MAX, example: 'on-call bot' })
  @IsOptional()
  @IsString()
  @Length(1, WEBHOOK_NAME_MAX)
  name?: string | null;
}

export class UpdateWebhookDto {
  @ApiPropertyOptional({ maxLength: WEBHOOK_URL_MAX, example: 'https://hooks.example.com/incidents' })
  @IsOmittable()
  @IsString()
  @MaxLength(WEBHOOK_URL_MAX)
  @IsUrl(URL_OPTIONS, { message: URL_MESSAGE })
  url?: string;

  @ApiPropertyOptional({ enum: WEBHOOK_EVENTS, isArray: true })
  @IsOmittable()
  @IsArray()
  @ArrayNotEmpty()
  @ArrayMaxSize(WEBHOOK_EVENTS.length)
  @ArrayUnique()
  @IsIn(WEBHOOK_EVENTS, { each: true })
  events?: WebhookEventName[];

  @ApiPropertyOptional({ minLength: WEBHOOK_SECRET_MIN, maxLength: WEBHOOK_SECRET_MAX, description: 'A new signing secret, used from the next attempt on; never answered' })
  @IsOmittable()
  @IsString()
  @Length(WEBHOOK_SECRET_MIN, WEBHOOK_SECRET_MAX)
  @Matches(SECRET_PATTERN, { message: SECRET_MESSAGE })
  secret?: string;

  @ApiPropertyOptional({ type: String, nullable: true, minLength: 1, maxLength: WEBHOOK_NAME_MAX, description: 'null clears the name' })
  @IsOptional()
  @IsString()
  @Length(1, WEBHOOK_NAME_MAX)
  name?: string | null;
}

export class WebhookDto {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ type: String, nullable: true, example: 'on-call bot' }) name!: string | null;
  @ApiProperty({ example: 'https://hooks.example.com/incidents' }) url!: string;
  @ApiProperty({ enum: WEBHOOK_EVENTS, isArray: true }) events!: WebhookEventName[];
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class CreatedWebhookDto extends WebhookDto {
  @ApiProperty({ example: 'whsec_3q2x…', description: 'The signing secret, answered this once: keep it with the receiver' })
  secret!: string;
}

export const WebhookPageDto = PageOf(WebhookDto, 'WebhookPageDto');

export class ListDeliveriesQueryDto extends PageQueryDto {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES, description: 'Only deliveries with this status' })
  @IsOmittable()
  @IsIn(DELIVERY_STATUSES)
  status?: DeliveryStatus;
}

export class WebhookDeliveryDto {
  @ApiProperty({ format: 'uuid', description: 'Also sent as X-Intake-Delivery and as the body\'s `id`' }) id!: string;
  @ApiProperty({ enum: WEBHOOK_EVENTS }) event!: string;
  @ApiProperty({ enum: DELIVERY_STATUSES, description: 'pending: not yet delivered, being retried; delivered: a 2xx answer came; failed: no 2xx within WEBHOOK_MAX_AGE' })
  status!: DeliveryStatus;
  @ApiProperty({ example: 1, description: 'Attempts made (or started) so far' }) attempts!: number;
  @ApiProperty({ type: Number, nullable: true, example: 200, description: 'The status of the last answer; null when none came' }) lastStatusCode!: number | null;
  @ApiProperty({ type: String, nullable: true, example: 'no answer within 5000 ms', description: 'Why the last attempt failed' }) lastError!: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastAttemptAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) deliveredAt!: string | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'When a pending delivery is tried next (while an attempt is in flight: when its claim lapses); null once delivered or failed' })
  nextAttemptAt!: string | null;
}

export const WebhookDeliveryPageDto = PageOf(WebhookDeliveryDto, 'WebhookDeliveryPageDto');

/** The answer's shape of a subscription; never its secret. */
export function toWebhookDto(subscription: WebhookSubscription): WebhookDto {
  return {
    id: subscription.id,
    name: subscription.name,
    url: subscription.url,
    events: [...subscription.events],
    createdAt: subscription.createdAt.toISOString(),
    updatedAt: subscription.updatedAt.toISOString(),
  };
}

export function toWebhookDeliveryDto(delivery: WebhookDelivery): WebhookDeliveryDto {
  return {
    id: delivery.id,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    lastStatusCode: delivery.lastStatusCode,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt.toISOString(),
    lastAttemptAt: delivery.lastAttemptAt?.toISOString() ?? null,
    deliveredAt: delivery.deliveredAt?.toISOString() ?? null,
    nextAttemptAt: delivery.nextAttemptAt?.toISOString() ?? null,
  };
}
