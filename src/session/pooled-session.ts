/**
 * One pooled upstream session (./pool.ts): its session core, and the one request it is lent to now. What the
 * upstream sends outside any request goes to the pool's `unrouted`.
 */
import type { JsonObject } from '../json.js';
import type { JsonRpcId } from '../jsonrpc/classify.js';
import type { ClientSide, Delivery } from './client-side.js';
import type { OwnedSession } from './owned.js';

/** What serves one request on a pooled session: where the upstream's messages for it go. */
export interface PoolStream {
  /** A message of the upstream for this request: its answer, its progress, a request of the upstream. */
  deliver(delivery: Delivery): void;
  /** True while its client cannot take more now (the session stops reading its upstream meanwhile). */
  readonly backedUp: boolean;
  /** No answer will come for `id` (it was cancelled). */
  abandon(id: JsonRpcId): void;
}

/** Where a pooled session's messages that belong to no request go (SessionPool.unrouted). */
export type Unrouted = (session: PooledSession, delivery: Delivery, scope: string | undefined) => void;

/** One pooled upstream session: its core, and the one request it serves now. */
export class PooledSession implements ClientSide<PoolStream> {
  readonly owned: OwnedSession<PoolStream>;
  readonly key: string;
  /** The upstream's InitializeResult. */
  initialize: JsonObject | undefined;
  #stream: PoolStream | undefined;
  #idle: NodeJS.Timeout | undefined;
  #ids = 0;
  readonly #unrouted: Unrouted;
  /**
   * Set while the session holds resource subscriptions for one key (src/http/front/resource-subscriptions.ts):
   * what it sends outside any request (its resource updates) is for that key's listeners only.
   */
  scope: string | undefined;

  constructor(unrouted: Unrouted, key: string, owned: OwnedSession<PoolStream>) {
    this.#unrouted = unrouted;
    this.key = key;
    this.owned = owned;
    owned.attach(this);
  }

  /** Lent to a request now. */
  get busy(): boolean {
    return this.#stream !== undefined;
  }

  get alive(): boolean {
    return this.owned.closed === undefined && this.owned.link.alive;
  }

  /** A request id for the upstream, unique in this session (a late answer to a cancelled one matches nothing). */
  nextId(): string {
    this.#ids += 1;
    return `rf-${this.#ids}`;
  }

  /** The request `stream` serves has the session now. */
  use(stream: PoolStream): void {
    this.#stream = stream;
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  /** Lent to nobody: it closes after `idleMs` unless lent again. */
  rest(idleMs: number, onIdle: () => void): void {
    this.#stream = undefined;
    this.owned.pressureChanged();
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = setTimeout(onIdle, idleMs);
    this.#idle.unref();
  }

  stopTimer(): void {
    if (this.#idle) clearTimeout(this.#idle);
    this.#idle = undefined;
  }

  deliver(stream: PoolStream | undefined, delivery: Delivery): void {
    if (stream) stream.deliver(delivery);
    else this.#unrouted(this, delivery, this.scope);
  }

  backedUp(): boolean {
    return this.#stream?.backedUp ?? false;
  }

  abandon(stream: PoolStream | undefined, id: JsonRpcId): void {
    stream?.abandon(id);
  }
}
