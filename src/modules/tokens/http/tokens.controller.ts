import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiBadRequestResponse, ApiCreatedResponse, ApiNoContentResponse, ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminApi } from '../../../shared/auth/admin-key.guard.js';
import { ErrorResponseDto } from '../../../shared/http/error-response.dto.js';
import { PageQueryDto } from '../../../shared/http/pagination.js';
import { TokensService } from '../tokens.service.js';
import { CreatedTokenDto, CreateTokenDto, TokenDto, TokenPageDto, UpdateTokenDto } from './dto/token.dto.js';
import { EndpointSettingsDto } from './dto/endpoint-settings.dto.js';

@ApiTags('API tokens')
@AdminApi()
@Controller('api/tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Post()
  @ApiOperation({ summary: 'Create an API token', description: 'The answer carries the secret (`token`), and the endpoint settings with it filled in, this one time only.' })
  @ApiCreatedResponse({ type: CreatedTokenDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Invalid or unknown fields' })
  create(@Body() body: CreateTokenDto): Promise<CreatedTokenDto> {
    return this.tokens.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'List API tokens, newest first' })
  @ApiOkResponse({ type: TokenPageDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto, description: 'Bad limit or cursor' })
  list(@Query() query: PageQueryDto) {
    return this.tokens.list(query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Read an API token (never its secret)' })
  @ApiOkResponse({ type: TokenDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  get(@Param('id') id: string): Promise<TokenDto> {
    return this.tokens.get(id);
  }

  @Get(':id/endpoint-settings')
  @ApiOperation({
    summary: "The token's intake addresses and ready-to-paste sender configuration",
    description:
      'Trace and alert URLs (from PUBLIC_BASE_URL), the Zipkin reporter keys, the Authorization header, the alert webhook body and a curl line per endpoint. ' +
      'The secret appears as `secretPlaceholder` (`<API token>`); the answer to `POST /api/tokens` carries the same settings with the secret filled in.',
  })
  @ApiOkResponse({ type: EndpointSettingsDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto, description: 'No live token has this id' })
  endpointSettings(@Param('id') id: string): Promise<EndpointSettingsDto> {
    return this.tokens.endpointSettings(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename, turn debug on or off, set the rate limit', description: '`debug: true` (re)starts the debug window; `false` stops logging now.' })
  @ApiOkResponse({ type: TokenDto })
  @ApiBadRequestResponse({ type: ErrorResponseDto })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  update(@Param('id') id: string, @Body() body: UpdateTokenDto): Promise<TokenDto> {
    return this.tokens.update(id, body);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API token', description: 'Intake calls with its secret answer 401 from now on.' })
  @ApiNoContentResponse({ description: 'Revoked' })
  @ApiNotFoundResponse({ type: ErrorResponseDto })
  revoke(@Param('id') id: string): Promise<void> {
    return this.tokens.revoke(id);
  }
}
