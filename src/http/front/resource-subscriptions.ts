/**
 * `resourceSubscriptions` of 2026-07-28 listeners (./listen.ts) in front of an upstream that holds sessions:
 * the revision has no `resources/subscribe`, the upstream has nothing else. The gateway keeps one pooled
 * session of the upstream per key (the listeners' credentials and capabilities, as the pool keys sessions):
 * taken from the pool while a listener of that key wants a resource, given back when none does. It subscribes
 * that session to each URI a listener of the key asked for — once per URI, however many of them ask — and
 * unsubscribes it when the last of them leaves. The upstream's `notifications/resources/updated` on that
 * session then reach the listeners of that key and URI, no others: a user's subscriptions are made with that
 * user's credentials and tell nobody else anything. If a session ends, the listeners that depend on it are
 * ended (the client re-listens), since the subscriptions are gone with it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject } from '../../json.js';
import { classifyMessage } from '../../jsonrpc/classify.js';
import type { Logger } from '../../log.js';
import type { Delivery } from '../../session/client-side.js';
import type { LeaseRequest, PoolRefusal, SessionPool } from '../../session/pool.js';
import type { PooledSession, PoolStream } from '../../session/pooled-session.js';

/** Most URIs one listener may subscribe to. */
export const MAX_URIS_PER_LISTENER = 100;

export interface SubscriptionOwner {
  /** The URIs it listens to. */
  readonly uris: readonly string[];
  /** Its subscriptions were lost (the session that held them ended): it must end. */
  lost(): void;
}

/** The stream a subscribe request is sent on: its answer matters to nobody; anything else is the pool's, scoped. */
class QuietStream implements PoolStream {
  readonly backedUp = false;
  readonly #pool: SessionPool;
  readonly #session: PooledSession;

  constructor(pool: SessionPool, session: PooledSession) {
    this.#pool = pool;
    this.#session = session;
  }

  deliver(delivery: Delivery): void {
    if (delivery.answers === undefined) this.#pool.unrouted(this.#session, delivery, this.#session.scope);
  }

  abandon(): void {}
}

/** One key's subscriptions: its session, its listeners, and how many of them want each URI. */
interface Holder {
  readonly key: string;
  session: PooledSession | undefined;
  taking: Promise<PooledSession | PoolRefusal> | undefined;
  readonly counts: Map<string, number>;
  readonly owners: Set<SubscriptionOwner>;
}

export class ResourceSubscriptions {
  readonly #pool: SessionPool;
  readonly #log: Logger;
  /** At most one per listener (listeners are bounded), each holding at most one pooled session. */
  readonly #holders = new Map<string, Holder>();
  readonly #holderOf = new Map<SubscriptionOwner, Holder>();

  constructor(pool: SessionPool, log: Logger) {
    this.#pool = pool;
    this.#log = log;
  }

  /** A pooled session ended: if it held subscriptions, their listeners are ended. */
  lost(session: PooledSession): void {
    const holder = this.#holders.get(session.key);
    if (!holder || holder.session !== session) return;
    this.#holders.delete(holder.key);
    const owners = [...holder.owners];
    for (const o of owners) this.#holderOf.delete(o);
    this.#log.warn({ listeners: owners.length }, 'the upstream session holding resource subscriptions ended; their listeners are ended');
    for (const o of owners) o.lost();
  }

  /** Subscribe `owner`'s URIs under its key (the ones nobody of the key had yet go upstream); false when no session could be had. */
  async add(owner: SubscriptionOwner, request: Omit<LeaseRequest, 'deadline'> & { readonly timeoutMs: number }): Promise<boolean> {
    if (owner.uris.length === 0) return true;
    let holder = this.#holders.get(request.key);
    if (!holder) this.#holders.set(request.key, (holder = { key: request.key, session: undefined, taking: undefined, counts: new Map(), owners: new Set() }));
    const session = await this.#sessionFor(holder, request);
    if (!session) {
      if (holder.owners.size === 0 && holder.session === undefined && this.#holders.get(holder.key) === holder) this.#holders.delete(holder.key);
      return false;
    }
    holder.owners.add(owner);
    this.#holderOf.set(owner, holder);
    for (const uri of owner.uris) {
      const n = holder.counts.get(uri) ?? 0;
      holder.counts.set(uri, n + 1);
      if (n === 0) this.#send(session, 'resources/subscribe', uri, request.headers);
    }
    return true;
  }

  /** `owner` left: URIs nobody of its key listens to any more are unsubscribed; with none left, the session goes back. */
  remove(owner: SubscriptionOwner): void {
    const holder = this.#holderOf.get(owner);
    if (!holder) return;
    this.#holderOf.delete(owner);
    holder.owners.delete(owner);
    const session = holder.session;
    for (const uri of owner.uris) {
      const n = (holder.counts.get(uri) ?? 1) - 1;
      if (n > 0) holder.counts.set(uri, n);
      else {
        holder.counts.delete(uri);
        if (session) this.#send(session, 'resources/unsubscribe', uri, {});
      }
    }
    if (holder.owners.size === 0) {
      if (this.#holders.get(holder.key) === holder) this.#holders.delete(holder.key);
      holder.session = undefined;
      if (session) {
        session.scope = undefined;
        this.#pool.release(session);
      }
    }
  }

  async #sessionFor(holder: Holder, request: Omit<LeaseRequest, 'deadline'> & { readonly timeoutMs: number }): Promise<PooledSession | undefined> {
    if (holder.session?.alive) return holder.session;
    holder.taking ??= Promise.resolve(this.#pool.lease({ ...request, deadline: Date.now() + request.timeoutMs })).finally(() => (holder.taking = undefined));
    const lent = await holder.taking;
    if ('refused' in lent) return undefined;
    if (holder.session !== lent) {
      holder.session = lent;
      lent.scope = holder.key;
      lent.use(new QuietStream(this.#pool, lent));
    }
    return lent;
  }

  #send(session: PooledSession, method: string, uri: string, headers: IncomingHttpHeaders): void {
    const message: JsonObject = { jsonrpc: '2.0', id: session.nextId(), method, params: { uri } };
    const { sent } = session.owned.request(classifyMessage(message), JSON.stringify(message), { header: undefined, policy: undefined, stream: new QuietStream(this.#pool, session) }, { headers });
    void Promise.resolve(sent).then((outcome) => {
      if (!outcome.ok) this.#log.warn({ method, uri, err: outcome.error }, 'resource subscription could not be sent upstream');
    });
  }
}
