import { Module } from '@nestjs/common';
import { TokensModule } from '../tokens/contracts.js';
import { IntakeController } from './http/intake.controller.js';
import { IntakeService } from './intake.service.js';

@Module({ imports: [TokensModule], controllers: [IntakeController], providers: [IntakeService] })
export class IntakeModule {}
