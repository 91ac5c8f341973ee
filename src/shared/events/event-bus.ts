import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { DomainEventName, DomainEvents, DomainEventReplies } from './domain-events.js';

const ON_DOMAIN_EVENT = Symbol('ON_DOMAIN_EVENT');

/** What a handler of `K` answers: a reply for request-style events, nothing otherwise. */
export type EventReply<K extends DomainEventName> = K extends keyof DomainEventReplies ? DomainEventReplies[K] : void;

type Handler<K extends DomainEventName> = (event: DomainEvents[K]) => Promise<EventReply<K>> | EventReply<K>;

/**
 * Marks a service method as the handler of a domain event. Handlers are `on<Event>` methods of a
 * module's service, found at bootstrap.
 */
export function OnDomainEvent(name: DomainEventName): MethodDecorator {
  return (target, key) => {
    const names: DomainEventName[] = Reflect.getMetadata(ON_DOMAIN_EVENT, target, key) ?? [];
    Reflect.defineMetadata(ON_DOMAIN_EVENT, [...names, name], target, key);
  };
}

/**
 * In-process domain event bus. Dispatch is awaited: `publish` returns once every handler has
 * finished, in registration order, so that a publisher can rely on the effects being committed.
 * A failing handler fails the publish.
 */
@Injectable()
export class EventBus implements OnApplicationBootstrap {
  private readonly handlers = new Map<DomainEventName, Array<Handler<DomainEventName>>>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  onApplicationBootstrap(): void {
    // A service also provided under its facade's token shows up twice: subscribe it once.
    const seen = new Set<object>();
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object' || !wrapper.isDependencyTreeStatic() || seen.has(instance)) continue;
      seen.add(instance);
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const names = Reflect.getMetadata(ON_DOMAIN_EVENT, prototype, method) as DomainEventName[] | undefined;
        for (const name of names ?? []) {
          const fn = instance[method] as (event: unknown) => unknown;
          this.subscribe(name, fn.bind(instance) as Handler<DomainEventName>);
        }
      }
    }
  }

  subscribe<K extends DomainEventName>(name: K, handler: Handler<K>): () => void {
    const list = this.handlers.get(name) ?? [];
    list.push(handler as unknown as Handler<DomainEventName>);
    this.handlers.set(name, list);
    return () => {
      const current = this.handlers.get(name) ?? [];
      this.handlers.set(name, current.filter((h) => h !== (handler as unknown)));
    };
  }

  /** Runs every handler of `name` in turn and returns their replies. */
  async publish<K extends DomainEventName>(name: K, event: DomainEvents[K]): Promise<Array<EventReply<K>>> {
    const replies: Array<EventReply<K>> = [];
    for (const handler of this.handlers.get(name) ?? []) {
      replies.push((await handler(event)) as EventReply<K>);
    }
    return replies;
  }

  /** Publishes a request-style event that exactly one handler answers, and returns its reply. */
  async request<K extends keyof DomainEventReplies & DomainEventName>(name: K, event: DomainEvents[K]): Promise<DomainEventReplies[K]> {
    const count = this.handlers.get(name)?.length ?? 0;
    if (count !== 1) throw new Error(`${name} needs exactly one handler that replies, found ${count}`);
    const [reply] = await this.publish(name, event);
    return reply as DomainEventReplies[K];
  }
}
