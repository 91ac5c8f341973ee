// The floor of the service's framework: a minimal NestJS app on the same Fastify adapter, with the
// same helmet headers, a guard that reads the bearer header and a controller that answers 202 with
// what Fastify parsed. No auth lookup, no filters, no database. Started by bench/run.mjs, which
// measures it on the unmatched payload, so the cost of the framework alone is a figure of the run.
// Plain JavaScript: Nest's decorators are applied as functions.
import 'reflect-metadata';
import { Body, Controller, HttpCode, Injectable, Module, Post, UnauthorizedException, UseGuards } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { stopWithParent } from './stop-with-parent.mjs';

class BearerGuard {
  canActivate(context) {
    const header = context.switchToHttp().getRequest().headers.authorization;
    if (typeof header !== 'string' || !header.startsWith('Bearer ')) throw new UnauthorizedException();
    return true;
  }
}
Injectable()(BearerGuard);

class IntakeController {
  trace(body) {
    return { received: Array.isArray(body) ? body.length : 1 };
  }
}
const trace = Object.getOwnPropertyDescriptor(IntakeController.prototype, 'trace');
Body()(IntakeController.prototype, 'trace', 0);
HttpCode(202)(IntakeController.prototype, 'trace', trace);
Post('trace')(IntakeController.prototype, 'trace', trace);
UseGuards(BearerGuard)(IntakeController);
Controller('v1')(IntakeController);

class FloorModule {}
Module({ controllers: [IntakeController] })(FloorModule);

const app = await NestFactory.create(FloorModule, new FastifyAdapter({ bodyLimit: 5_242_880 }), { logger: false });
app.useSecurityHeaders({ strictTransportSecurity: false, contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } } });
stopWithParent(() => app.close());

await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`nest floor listening on http://127.0.0.1:${app.getHttpServer().address().port}`);
