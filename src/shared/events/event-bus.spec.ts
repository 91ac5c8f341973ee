import { describe, expect, it } from '@jest/globals';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { EventBus } from './event-bus.js';

const bus = () => new EventBus({ getProviders: () => [] } as unknown as DiscoveryService, new MetadataScanner());
const tick = () => new Promise((r) => setTimeout(r, 5));

describe(EventBus.name, () => {
  it('awaits every handler, in order, before publish returns', async () => {
    const b = bus();
    const done: string[] = [];
    b.subscribe('TokenRevoked', async () => {
      await tick();
      done.push('first');
    });
    b.subscribe('TokenRevoked', () => {
      done.push('second');
    });
    await b.publish('TokenRevoked', { tokenId: 't' });
    expect(done).toEqual(['first', 'second']);
  });

  it('fails the publish when a handler fails', async () => {
    const b = bus();
    b.subscribe('TokenRevoked', () => {
      throw new Error('handler failed');
    });
    await expect(b.publish('TokenRevoked', { tokenId: 't' })).rejects.toThrow('handler failed');
  });

  it('answers a request from its one handler, and refuses none or several', async () => {
    const b = bus();
    const event = { tokenId: 't', path: '/v1/trace', receivedAt: new Date(), payloads: [] };
    await expect(b.request('PayloadReceived', event)).rejects.toThrow('exactly one handler');
    const unsubscribe = b.subscribe('PayloadReceived', () => [{ index: 0, filters: [] }]);
    await expect(b.request('PayloadReceived', event)).resolves.toEqual([{ index: 0, filters: [] }]);
    b.subscribe('PayloadReceived', () => []);
    await expect(b.request('PayloadReceived', event)).rejects.toThrow('found 2');
    unsubscribe();
    await expect(b.request('PayloadReceived', event)).resolves.toEqual([]);
  });
});
