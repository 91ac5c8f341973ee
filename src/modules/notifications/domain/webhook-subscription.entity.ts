import { randomUUID } from 'node:crypto';
import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { InvalidInputError } from '../../../shared/errors/domain-error.js';
import { WEBHOOK_EVENTS, type WebhookEventName } from './webhook-message.js';

export const WEBHOOK_NAME_MAX = 200;
export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_SECRET_MIN = 16;
export const WEBHOOK_SECRET_MAX = 256;

export class WebhookInvalidError extends InvalidInputError {
  constructor(problems: Array<{ field: string; problem: string }>) {
    super(
      'WEBHOOK_INVALID',
      problems.map((p) => `${p.field} ${p.problem}`).join('; '),
      problems.map((p) => ({ field: p.field, problems: [`${p.field} ${p.problem}`] })),
    );
  }
}

export interface WebhookValues {
  url?: string;
  events?: string[];
  name?: string | null;
  secret?: string;
}

/**
 * An admin's subscription to incident events: where to POST them and the secret to sign them with.
 * The secret is kept as given (the service must sign with it, so a hash would not do); it is
 * hidden from serialisation and answered only when the subscription is created.
 */
@Entity({ tableName: 'webhook_subscriptions' })
export class WebhookSubscription {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();

  @Property({ length: WEBHOOK_NAME_MAX, nullable: true })
  name: string | null = null;

  @Property({ length: WEBHOOK_URL_MAX })
  url!: string;

  @Property({ type: 'json' })
  events!: WebhookEventName[];

  @Property({ length: WEBHOOK_SECRET_MAX, hidden: true })
  secret!: string;

  @Property({ type: 'timestamptz' })
  createdAt: Date;

  @Property({ type: 'timestamptz' })
  updatedAt: Date;

  constructor(values: Required<Pick<WebhookValues, 'url' | 'events' | 'secret'>> & Pick<WebhookValues, 'name'>, now: Date) {
    this.createdAt = now;
    this.updatedAt = now;
    this.apply(values);
  }

  /** Partial edit: each value given replaces that one value; `name: null` clears the name. */
  edit(changes: WebhookValues, now: Date): void {
    this.apply(changes);
    this.updatedAt = now;
  }

  wants(event: string): boolean {
    return (this.events as string[]).includes(event);
  }

  private apply(values: WebhookValues): void {
    const problems: Array<{ field: string; problem: string }> = [];
    if (values.url !== undefined && !isWebhookUrl(values.url)) {
      problems.push({ field: 'url', problem: `must be an http:// or https:// URL without credentials, of at most ${WEBHOOK_URL_MAX} characters` });
    }
    if (values.events !== undefined) {
      const unknown = values.events.filter((e) => !(WEBHOOK_EVENTS as readonly string[]).includes(e));
      if (values.events.length === 0) problems.push({ field: 'events', problem: `must name at least one of ${WEBHOOK_EVENTS.join(', ')}` });
      if (unknown.length > 0) problems.push({ field: 'events', problem: `has unknown events ${unknown.join(', ')}; known: ${WEBHOOK_EVENTS.join(', ')}` });
    }
    if (values.secret !== undefined && (values.secret.length < WEBHOOK_SECRET_MIN || values.secret.length > WEBHOOK_SECRET_MAX || !/^[\x21-\x7e]+$/.test(values.secret))) {
      problems.push({ field: 'secret', problem: `must have ${WEBHOOK_SECRET_MIN} to ${WEBHOOK_SECRET_MAX} visible ASCII characters` });
    }
    if (values.name !== undefined && values.name !== null && (values.name.length < 1 || values.name.length > WEBHOOK_NAME_MAX)) {
      problems.push({ field: 'name', problem: `must have 1 to ${WEBHOOK_NAME_MAX} characters` });
    }
    if (problems.length > 0) throw new WebhookInvalidError(problems);
    if (values.url !== undefined) this.url = values.url;
    // Kept in the order of WEBHOOK_EVENTS, each once.
    if (values.events !== undefined) this.events = WEBHOOK_EVENTS.filter((e) => values.events?.includes(e));
    if (values.secret !== undefined) this.secret = values.secret;
    if (values.name !== undefined) this.name = values.name;
  }
}

/**
 * An absolute http(s) URL with a host and without credentials (fetch refuses to send those; the
 * signature is how a receiver knows the caller). Anything else (ftp:, file:, a relative path) is refused.
 */
export function isWebhookUrl(text: string): boolean {
  if (text.length > WEBHOOK_URL_MAX) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.username && !url.password;
  } catch {
    return false;
  }
}
