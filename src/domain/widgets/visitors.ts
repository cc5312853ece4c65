import { createHmac, timingSafeEqual } from 'node:crypto';
import { ForbiddenError, NotFoundError } from '../errors.js';
import { isUuid } from '../ids.js';
import type { Scope } from '../model.js';
import type { Page, PageRequest } from '../pagination.js';
import type { ConversationOwner, ConversationRepository, ConversationSummary, StoredMessage } from '../answers/port.js';
import type { StoredWidget, WidgetRepository } from './port.js';

/** A visitor as the website's server vouches for them: its user id and the HMAC of it. */
export interface VisitorIdentity {
  id: string;
  hash: string;
}

/** A proven visitor of one widget. */
export type VisitorOwner = ConversationOwner & { visitorId: string };

const DAY_MS = 86_400_000;

/** The signature a website's server gives a visitor: hex HMAC-SHA256 of the user id under the widget's identity secret. */
export function signVisitor(userId: string, identitySecret: string): string {
  return createHmac('sha256', identitySecret).update(userId).digest('hex');
}

/** Whether `hash` is the visitor's signature; compared in constant time, malformed hashes are simply false. */
export function visitorHashMatches(userId: string, hash: string, identitySecret: string): boolean {
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) return false;
  const expected = Buffer.from(signVisitor(userId, identitySecret), 'hex');
  const given = Buffer.from(hash, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

export interface VisitorConversationService {
  /**
   * The owner a widget request acts as: the proven visitor, or anonymous without `user`.
   * A hash that does not match → 403, never anonymous (SPEC.md "Signed visitor identity").
   */
  owner(scope: Scope, widget: StoredWidget, user: VisitorIdentity | null): Promise<ConversationOwner>;
  /** Like `owner`, for the routes that need a proven visitor. */
  visitor(scope: Scope, widget: StoredWidget, user: VisitorIdentity): Promise<VisitorOwner>;
  list(scope: Scope, owner: VisitorOwner, page: PageRequest): Promise<Page<ConversationSummary>>;
  /** One transcript; 404 when unknown or not this visitor's. */
  get(scope: Scope, owner: VisitorOwner, id: string): Promise<{ id: string; kept: boolean; messages: StoredMessage[] }>;
  /** Keeps (exempt from expiry) or releases a conversation; 404 when not this visitor's. */
  keep(scope: Scope, owner: VisitorOwner, id: string, kept: boolean): Promise<{ id: string; kept: boolean; messages: StoredMessage[] }>;
  /** Deletes one conversation (404 when not this visitor's), or all of them with `id` null. */
  delete(scope: Scope, owner: VisitorOwner, id: string | null): Promise<void>;
  /** Deletes conversations not kept and idle for the TTL (days) before `now`; a TTL of 0 turns expiry off. The number deleted. */
  expire(now: Date): Promise<number>;
}

export function createVisitorConversationService(deps: {
  conversations: ConversationRepository;
  widgets: Pick<WidgetRepository, 'identitySecret'>;
  ttlDays: number;
}): VisitorConversationService {
  const { conversations, widgets } = deps;

  async function visitor(scope: Scope, widget: StoredWidget, user: VisitorIdentity): Promise<VisitorOwner> {
    const secret = await widgets.identitySecret(scope, widget.id);
    if (secret === null || !visitorHashMatches(user.id, user.hash, secret)) throw new ForbiddenError('The visitor identity could not be verified.');
    return { widgetId: widget.id, visitorId: user.id };
  }

  async function get(scope: Scope, owner: VisitorOwner, id: string) {
    const found = isUuid(id) ? await conversations.getOwned(scope, owner, id) : null;
    if (!found) throw new NotFoundError('Conversation');
    return found;
  }

  return {
    owner: async (scope, widget, user) => (user ? visitor(scope, widget, user) : { widgetId: widget.id, visitorId: null }),
    visitor,
    list: (scope, owner, page) => conversations.listOwned(scope, owner, page),
    get,
    async keep(scope, owner, id, kept) {
      if (!isUuid(id) || !(await conversations.setKept(scope, owner, id, kept))) throw new NotFoundError('Conversation');
      return get(scope, owner, id);
    },
    async delete(scope, owner, id) {
      if (id === null) {
        await conversations.deleteOwned(scope, owner, null);
        return;
      }
      if (!isUuid(id) || (await conversations.deleteOwned(scope, owner, id)) === 0) throw new NotFoundError('Conversation');
    },
    async expire(now) {
      if (deps.ttlDays === 0) return 0;
      return conversations.deleteExpired(new Date(now.getTime() - deps.ttlDays * DAY_MS));
    },
  };
}
