import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyReply } from 'fastify';

const READY_TIMEOUT_MS = 2000;

@ApiTags('Health')
@Controller('health')
export class HealthController {
  constructor(private readonly orm: MikroORM) {}

  @Get()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ schema: { example: { status: 'ok' } } })
  live() {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: the database answers within 2 seconds' })
  @ApiOkResponse({ schema: { example: { status: 'ok', database: 'up' } } })
  @ApiServiceUnavailableResponse({ schema: { example: { status: 'unavailable', database: 'down' } } })
  async ready(@Res({ passthrough: true }) reply: FastifyReply) {
    const up = await this.databaseAnswers();
    reply.status(up ? 200 : 503);
    return up ? { status: 'ok', database: 'up' } : { status: 'unavailable', database: 'down' };
  }

  private async databaseAnswers(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((done) => (timer = setTimeout(() => done(false), READY_TIMEOUT_MS)));
    const query = this.orm.em
      .getConnection()
      .execute('select 1')
      .then(() => true)
      .catch(() => false);
    try {
      return await Promise.race([query, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}
