/**
 * The requests of one session whose answers the gateway waits for, by JSON-RPC id. Bounded (a client cannot
 * grow the gateway's memory by never reading answers) and expiring: an entry past `ttlMs` is gone, and a
 * gateway-owned session fails requests past their deadline (src/session/owned.ts).
 *
 * A proxied session's response can be replayed by its upstream on a resumed GET stream (Last-Event-ID), and
 * must be rewritten the same way again: with `retainAnsweredMs`, an answered entry stays matchable that long.
 *
 * An entry that leaves unanswered — evicted past `max`, or expired — is handed to `onDropped`, so whoever
 * keeps the request elsewhere (a client stream waiting for its answer, share mode's in-flight ids) hears of it.
 *
 * Ids past 2^53 (64-bit ids: 9007199254740993 and 9007199254740992 read as the same double) are told apart by
 * their literal: an entry whose request's literal is known is kept under it, and a lookup that knows the
 * answer's literal finds it. A lookup that does not (or whose upstream wrote the id back rounded, as a
 * JavaScript server does) finds the oldest entry with that parsed id.
 */
import { idKey, type ClassifiedMessage, type JsonRpcId } from '../jsonrpc/classify.js';
import { inexactId } from '../jsonrpc/id-literal.js';
import type { PendingRequest } from '../pipeline/request.js';

/** Why an unanswered entry left the table. */
export type DropReason = 'evicted' | 'expired';

/** Why the gateway waits for a response. */
export type Expectation =
  /** initialize: the answer carries the upstream's revision (and is bridged, see src/protocol/negotiate.ts). */
  | { readonly kind: 'initialize'; readonly requested: unknown }
  /**
   * tools/list, tools/call, tasks/result: the answer goes through the rewrite pipeline. `nativeOnly`: no schema
   * is configured for the tool, so only upstream structuredContent can change (be projected): an answer
   * without any need not even be parsed.
   */
  | { readonly kind: 'rewrite'; readonly request: PendingRequest; readonly nativeOnly?: boolean }
  /** Anything else a gateway-owned session sends: its answer is routed and deadlined, not changed. */
  | { readonly kind: 'route' };

/** One request in flight. `S` is whatever the owner routes the answer to (a client stream). */
export interface Pending<S = unknown> {
  readonly id: string | number;
  /** The id as the client wrote it, when JSON.parse could not read it back exactly (ClassifiedMessage.idLiteral). */
  readonly idLiteral?: string;
  readonly method: string;
  readonly expect: Expectation;
  /** performance.now() when it was sent (latency metric). */
  readonly started: number;
  /** Where its answer goes (gateway-owned sessions). */
  readonly stream?: S;
  /** The progressToken its `_meta` carried: progress with that token belongs to it. */
  readonly progressToken?: string | number;
  /** Date.now() past which it fails (gateway-owned sessions); moved on by progress. */
  deadline: number;
  /** Answered, kept only for replays (retainAnsweredMs). */
  answered: boolean;
}

/** The key an entry is kept under: its id's, or for an inexact id with a known literal, the literal's. */
function entryKey(pending: Pending<unknown>): string {
  return pending.idLiteral !== undefined && inexactId(pending.id) ? `n${pending.idLiteral}` : idKey(pending.id);
}

function isStrict(pending: Pending<unknown>): boolean {
  return pending.expect.kind !== 'rewrite' || pending.expect.nativeOnly !== true;
}

export { idKey } from '../jsonrpc/classify.js';

/**
 * The id that differs from `id` only in JSON type (2 for "2", "2" for 2), for safe integers and their canonical
 * strings; undefined for any other id. Some upstreams write a request's id back as a string, and the v1 SDK
 * client matches answers by Number(id): see src/session/inbound.ts (retyped).
 */
export function typeTwin(id: JsonRpcId): JsonRpcId | undefined {
  if (typeof id === 'number') return Number.isSafeInteger(id) && !Object.is(id, -0) ? String(id) : undefined;
  if (typeof id !== 'string' || !/^(0|-?[1-9]\d{0,15})$/.test(id)) return undefined;
  const n = Number(id);
  return Number.isSafeInteger(n) ? n : undefined;
}

export interface PendingOptions {
  /** Most entries kept; the oldest is evicted beyond it (default 1000). */
  readonly max?: number;
  /** Entries older than this are gone (ms; default: never). */
  readonly ttlMs?: number;
  /** How long an answered entry stays matchable for replays (ms; default 0: forgotten at once). */
  readonly retainAnsweredMs?: number;
  readonly now?: () => number;
}

interface Slot<S> {
  readonly pending: Pending<S>;
  /** Date.now() when the slot expires (TTL, or end of the replay retention). */
  expires: number;
}

export class PendingTable<S = unknown> {
  readonly #slots = new Map<string, Slot<S>>();
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #retainMs: number;
  readonly #now: () => number;
  /** Entries not yet answered (the retained ones do not count as in flight). */
  #open = 0;
  /** Entries (answered or not) whose answer must be parsed whatever it holds (see Expectation nativeOnly). */
  #strict = 0;
  readonly #settled: (() => void)[] = [];
  /**
   * Told of each entry that leaves unanswered (see the module comment), once the table no longer holds it.
   * A gateway-owned session sets it (src/session/owned.ts): it answers the client and cancels the request.
   */
  onDropped: ((pending: Pending<S>, why: DropReason) => void) | undefined;

  constructor(options: PendingOptions = {}) {
    this.#max = options.max ?? 1000;
    this.#ttlMs = options.ttlMs ?? Infinity;
    this.#retainMs = options.retainAnsweredMs ?? 0;
    this.#now = options.now ?? Date.now;
  }

  /** Requests waiting for their answer (expired ones are gone). */
  get size(): number {
    if (this.#ttlMs !== Infinity) this.prune();
    return this.#open;
  }

  /** True when nothing at all (not even a retained answer) is kept: the session's streams need no parsing. */
  get empty(): boolean {
    return this.#slots.size === 0;
  }

  /** True when every entry is a nativeOnly rewrite: only messages holding structuredContent need parsing. */
  get onlyNative(): boolean {
    return this.#strict === 0;
  }

  /** Register a request; the oldest entry is evicted past `max` (onDropped; an answer will pass through unchanged). */
  add(pending: Pending<S>): void {
    const key = entryKey(pending);
    if (this.#slots.has(key)) this.#remove(key);
    this.#slots.set(key, { pending, expires: this.#now() + this.#ttlMs });
    this.#open += 1;
    if (isStrict(pending)) this.#strict += 1;
    while (this.#slots.size > this.#max) {
      const oldest = this.#slots.keys().next().value as string;
      this.#remove(oldest, 'evicted');
    }
  }

  /** The entry for `id` (written as `literal`, when known: see the module comment; answered ones included) without changing it. */
  peek(id: JsonRpcId, literal?: string): Pending<S> | undefined {
    return this.#live(this.#keyOf(id, literal))?.pending;
  }

  /**
   * The first request of `messages` (one client POST) whose id is still in flight here, or repeated among them:
   * it would get one answer for two requests, so the edge refuses the body (RETROFIT_ERR_DUPLICATE_ID) before
   * anything is sent. Undefined when there is none (the usual case: no set is made for a single message).
   */
  firstDuplicate(messages: readonly ClassifiedMessage[]): ClassifiedMessage | undefined {
    let seen: Set<string> | undefined;
    for (const m of messages) {
      if (m.kind !== 'request' || m.id === undefined || m.id === null) continue;
      if (this.has(m.id, m.idLiteral)) return m;
      if (messages.length === 1) break;
      const key = m.idLiteral !== undefined && inexactId(m.id) ? `n${m.idLiteral}` : idKey(m.id);
      if ((seen ??= new Set()).has(key)) return m;
      seen.add(key);
    }
    return undefined;
  }

  /** True while `id` (written as `literal`, when known) waits for its answer. */
  has(id: JsonRpcId, literal?: string): boolean {
    const p = this.peek(id, literal);
    return p !== undefined && !p.answered;
  }

  /**
   * The entry this response answers: removed, or with retainAnsweredMs kept (marked answered) for replays
   * of the same response, which must be treated the same way.
   */
  answer(id: JsonRpcId, literal?: string): Pending<S> | undefined {
    const key = this.#keyOf(id, literal);
    const slot = this.#live(key);
    if (!slot) return undefined;
    const pending = slot.pending;
    if (pending.answered) return pending;
    if (this.#retainMs <= 0) {
      this.#remove(key!);
      return pending;
    }
    pending.answered = true;
    this.#open -= 1;
    slot.expires = this.#now() + this.#retainMs;
    this.#wake();
    return pending;
  }

  /** True while `pending` itself (not another request under its id) waits for its answer. */
  holds(pending: Pending<S>): boolean {
    return this.#live(entryKey(pending))?.pending === pending && !pending.answered;
  }

  /** Forget `pending` itself, when the table still holds it (answered or not): never another request under its id. */
  forget(pending: Pending<S>): void {
    const key = entryKey(pending);
    if (this.#slots.get(key)?.pending === pending) this.#remove(key);
  }

  /** Forget `id`, written as `literal` when known (no answer will come, or it was given already). */
  release(id: JsonRpcId, literal?: string): void {
    const key = this.#keyOf(id, literal);
    if (key !== undefined) this.#remove(key);
  }

  /** The requests still waiting, oldest first. */
  open(): Pending<S>[] {
    const out: Pending<S>[] = [];
    const now = this.#now();
    for (const slot of this.#slots.values()) if (!slot.pending.answered && now <= slot.expires) out.push(slot.pending);
    return out;
  }

  /** The first open request `test` accepts, oldest first (no allocation: it runs per notification). */
  find(test: (pending: Pending<S>) => boolean): Pending<S> | undefined {
    const now = this.#ttlMs === Infinity ? -Infinity : this.#now();
    for (const slot of this.#slots.values()) if (!slot.pending.answered && now <= slot.expires && test(slot.pending)) return slot.pending;
    return undefined;
  }

  /** The only open request, when exactly one is open. */
  single(): Pending<S> | undefined {
    if (this.size !== 1) return undefined;
    return this.find(() => true);
  }

  /** Drop expired entries (lookups check expiry anyway; this bounds what idle sessions hold). */
  prune(): void {
    const now = this.#now();
    for (const [key, slot] of this.#slots) if (now > slot.expires) this.#remove(key, 'expired');
  }

  /** Resolves once no request waits for its answer. */
  settled(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settled.push(resolve));
  }

  /** The slot kept under `key`, unless it has expired (then it is removed, as expired). */
  #live(key: string | undefined): Slot<S> | undefined {
    const slot = key === undefined ? undefined : this.#slots.get(key);
    if (!slot) return undefined;
    if (this.#now() > slot.expires) {
      this.#remove(key!, 'expired');
      return undefined;
    }
    return slot;
  }

  /**
   * The key of the entry for `id`: its own for an exact id; for an inexact one the entry kept under `literal`,
   * else under the rounded id, else the oldest still waiting whose parsed id is `id`, else the oldest answered
   * one (a scan only inexact ids pay).
   */
  #keyOf(id: JsonRpcId, literal: string | undefined): string | undefined {
    const key = idKey(id);
    if (!inexactId(id)) return key;
    if (literal !== undefined && this.#slots.has(`n${literal}`)) return `n${literal}`;
    if (this.#slots.has(key)) return key;
    let answered: string | undefined;
    for (const [k, slot] of this.#slots) {
      if (slot.pending.id !== id) continue;
      if (!slot.pending.answered) return k;
      answered ??= k;
    }
    return answered;
  }

  /** `dropped`: it leaves unanswered (evicted, expired) rather than answered or released. */
  #remove(key: string, dropped?: DropReason): void {
    const slot = this.#slots.get(key);
    if (!slot) return;
    this.#slots.delete(key);
    if (isStrict(slot.pending)) this.#strict -= 1;
    if (!slot.pending.answered) {
      this.#open -= 1;
      this.#wake();
      if (dropped) this.onDropped?.(slot.pending, dropped);
    }
  }

  #wake(): void {
    if (this.#open === 0) for (const resolve of this.#settled.splice(0)) resolve();
  }
}
