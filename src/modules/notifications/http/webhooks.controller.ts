import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminApi } from '../../../shared/auth/admin-key.guard.js';
import { ErrorResponseDto } from '../../../shared/http/error-response.dto.js';
import { PageQueryDto } from '../../../shared/http/pagination.js';
import { NotificationsService } from '../notifications.service.js';
import {
  CreatedWebhookDto,
  CreateWebhookDto,
  ListDeliveriesQueryDto,
  UpdateWebhookDto,
  WebhookDeliveryPageDto,
  WebhookDto,
  WebhookPageDto,
} from './dto/webhook.dto.js';

@ApiTags('Webhooks')
@AdminApi()
@Controller('api/webhooks')
export class WebhooksController {
  constructor(private readonly notifications: NotificationsService) {}

  @Post()
  @ApiOperation({
    summary: 'Subscribe a URL to incident events',
    description:
      'Each event is POSTed as `{id, event, occurredAt, data}`, signed with HMAC-SHA256 of the secret over `<X-Intake-Timestamp>.<raw body>` ' +
      '(`X-Intake-Signature: sha256=<hex>`), and retried with exponential backoff until a 2xx answer or WEBHOOK_MAX_AGE. The answer carries the secret this one time.',
  })
  @ApiCreatedResponse({ type: CreatedWebhookDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'A URL that is not http(s), unknown events, a bad secret, or unknown fields' })
  create(@Body() body: CreateWebhookDto): Promise<CreatedWebhookDto> {
    return this.notifications.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'List webhook subscriptions, newest first (never their secrets)' })
  @ApiOkResponse({ type: WebhookPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Bad limit or cursor' })
  list(@Query() query: PageQueryDto) {
    return this.notifications.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read a webhook subscription (never its secret)' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  get(@Param('id') id: string): Promise<WebhookDto> {
    return this.notifications.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Change the URL, events, name or secret', description: 'Only the values given change. A new secret signs from the next attempt on, pending deliveries included.' })
  @ApiOkResponse({ type: WebhookDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  update(@Param('id') id: string, @Body() body: UpdateWebhookDto): Promise<WebhookDto> {
    return this.notifications.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a webhook subscription', description: 'Its delivery log goes with it; pending deliveries are not sent.' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  remove(@Param('id') id: string): Promise<void> {
    return this.notifications.remove(id);
  }

  @Get(':id/deliveries')
  @ApiOperation({ summary: "The subscription's delivery log, newest first", description: 'Each delivery with its status (pending, delivered, failed), attempts and the last answer or error.' })
  @ApiOkResponse({ type: WebhookDeliveryPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Bad status, limit or cursor' })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  deliveries(@Param('id') id: string, @Query() query: ListDeliveriesQueryDto) {
    return this.notifications.deliveries(id, query);
  }
}
