/**
 * `resourceSubscriptions` of 2026-07-28 listeners (./listen.ts) in front of an upstream that holds sessions:
 * the revision has no `resources/subscribe`, the upstream has nothing else. The gateway keeps one pooled
 * session of the upstream for them (taken from the pool while any listener wants a resource, given back when
 * none does) and subscribes it to each URI some listener asked for — once per URI, however many listeners
 * ask — and unsubscribes it when the last of them leaves. The upstream's `notifications/resources/updated`
 * then reach the listeners of that URI. If that session ends, the listeners that depend on it are ended (the
 * client re-listens), since the subscriptions are gone with it.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { JsonObject } from '../../json.js';
import { classifyMessage } from '../../jsonrpc/classify.js';
import type { Logger } from '../../log.js';
import type { Delivery } from '../../session/client-side.js';
import type { LeaseRequest, PooledSession, PoolRefusal, PoolStream, SessionPool } from '../../session/pool.js';

/** Most URIs one listener may subscribe to. */
export const MAX_URIS_PER_LISTENER = 100;

export interface SubscriptionOwner {
  /** The URIs it listens to. */
  readonly uris: readonly string[];
  /** Its subscriptions were lost (the session that held them ended): it must end. */
  lost(): void;
}

/** The stream a subscribe request is sent on: its answer matters to nobody; anything else is the pool's. */
class QuietStream implements PoolStream {
  readonly backedUp = false;
  readonly #pool: SessionPool;
  readonly #session: PooledSession;

  constructor(pool: SessionPool, session: PooledSession) {
    this.#pool = pool;
    this.#session = session;
  }

  deliver(delivery: Delivery): void {
    if (delivery.answers === undefined) this.#pool.unrouted(this.#session, delivery);
  }

  abandon(): void {}
}

export class ResourceSubscriptions {
  readonly #pool: SessionPool;
  readonly #log: Logger;
  readonly #counts = new Map<string, number>();
  readonly #owners = new Set<SubscriptionOwner>();
  #session: PooledSession | undefined;
  #taking: Promise<PooledSession | PoolRefusal> | undefined;

  constructor(pool: SessionPool, log: Logger) {
    this.#pool = pool;
    this.#log = log;
  }

  /** The session that holds the subscriptions ended. */
  lost(session: PooledSession): void {
    if (session !== this.#session) return;
    this.#session = undefined;
    this.#counts.clear();
    const owners = [...this.#owners];
    this.#owners.clear();
    this.#log.warn({ listeners: owners.length }, 'the upstream session holding resource subscriptions ended; their listeners are ended');
    for (const o of owners) o.lost();
  }

  /** Subscribe `owner`'s URIs (the ones nobody had yet go upstream); false when no session could be had. */
  async add(owner: SubscriptionOwner, request: Omit<LeaseRequest, 'deadline'> & { readonly timeoutMs: number }): Promise<boolean> {
    if (owner.uris.length === 0) return true;
    const session = await this.#sessionFor(request);
    if (!session) return false;
    this.#owners.add(owner);
    for (const uri of owner.uris) {
      const n = this.#counts.get(uri) ?? 0;
      this.#counts.set(uri, n + 1);
      if (n === 0) this.#send(session, 'resources/subscribe', uri, request.headers);
    }
    return true;
  }

  /** `owner` left: URIs nobody listens to any more are unsubscribed; with none left, the session goes back. */
  remove(owner: SubscriptionOwner): void {
    if (!this.#owners.delete(owner)) return;
    const session = this.#session;
    for (const uri of owner.uris) {
      const n = (this.#counts.get(uri) ?? 1) - 1;
      if (n > 0) this.#counts.set(uri, n);
      else {
        this.#counts.delete(uri);
        if (session) this.#send(session, 'resources/unsubscribe', uri, {});
      }
    }
    if (this.#owners.size === 0 && session) {
      this.#session = undefined;
      this.#pool.release(session);
    }
  }

  async #sessionFor(request: Omit<LeaseRequest, 'deadline'> & { readonly timeoutMs: number }): Promise<PooledSession | undefined> {
    if (this.#session?.alive) return this.#session;
    this.#taking ??= Promise.resolve(this.#pool.lease({ ...request, deadline: Date.now() + request.timeoutMs })).finally(() => (this.#taking = undefined));
    const lent = await this.#taking;
    if ('refused' in lent) return undefined;
    if (this.#session !== lent) {
      this.#session = lent;
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
