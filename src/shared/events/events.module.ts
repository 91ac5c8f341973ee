import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { EventBus } from './event-bus.js';

@Global()
@Module({ imports: [DiscoveryModule], providers: [EventBus], exports: [EventBus] })
export class EventsModule {}
