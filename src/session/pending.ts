/**
 * Requests whose responses await rewriting, keyed by upstream + session + JSON-RPC id. A response may come
 * back on the POST's own stream or later on a GET stream replayed with Last-Event-ID, so the match is by
 * session and id, not by HTTP exchange. Bounded and expiring: a response that never comes costs nothing.
 */
import type { JsonRpcId } from '../jsonrpc/classify.js';
import type { PendingRequest } from '../pipeline/rewrite.js';
import { Lru } from './lru.js';

/** The session key used for requests without Mcp-Session-Id. */
export const NO_SESSION = 'no-session';

/** Options for PendingRequests. */
export interface PendingOptions {
  readonly max?: number;
  /** How long a request waits for its response (ms). */
  readonly ttlMs?: number;
  /** How long an answered request stays matchable for replays of its response (ms). */
  readonly answeredTtlMs?: number;
  readonly now?: () => number;
}

function sessionKey(upstream: string, session: string | undefined): string {
  return `${upstream}\u0000${session ?? NO_SESSION}`;
}

/** Ids of different JSON types must not collide: 1 and "1" are different requests. */
function idKey(id: JsonRpcId): string {
  return `${typeof id}:${String(id)}`;
}

export class PendingRequests {
  readonly #entries: Lru<{ readonly session: string; readonly request: PendingRequest; readonly answered?: boolean }>;
  /** Live entries per session, so streams of sessions with nothing pending skip parsing entirely. */
  readonly #perSession = new Map<string, number>();

  readonly #now: () => number;
  readonly #answeredTtlMs: number;
  #prunedAt = 0;

  constructor(options: PendingOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#answeredTtlMs = options.answeredTtlMs ?? 120_000;
    this.#entries = new Lru({
      max: options.max ?? 10_000,
      ttlMs: options.ttlMs ?? 15 * 60_000,
      ...(options.now && { now: options.now }),
      onRemove: (_k, entry) => {
        const n = (this.#perSession.get(entry.session) ?? 1) - 1;
        if (n <= 0) this.#perSession.delete(entry.session);
        else this.#perSession.set(entry.session, n);
      },
    });
  }

  add(upstream: string, session: string | undefined, id: JsonRpcId, request: PendingRequest): void {
    const s = sessionKey(upstream, session);
    this.#entries.set(`${s}\u0000${idKey(id)}`, { session: s, request });
    this.#perSession.set(s, (this.#perSession.get(s) ?? 0) + 1);
  }

  /**
   * The request this response answers, if any. It stays matchable for a short while: a client whose stream
   * dropped resumes with Last-Event-ID and is sent the same response again, which must be rewritten the same
   * way — whether or not the first copy reached it.
   */
  answer(upstream: string, session: string | undefined, id: JsonRpcId): PendingRequest | undefined {
    const k = `${sessionKey(upstream, session)}\u0000${idKey(id)}`;
    const entry = this.#entries.get(k);
    if (!entry) return undefined;
    if (!entry.answered) {
      this.#entries.set(k, { ...entry, answered: true }, this.#answeredTtlMs);
      this.#perSession.set(entry.session, (this.#perSession.get(entry.session) ?? 0) + 1);
    }
    return entry.request;
  }

  /** The request a response with this id would answer, without marking it answered. */
  peek(upstream: string, session: string | undefined, id: JsonRpcId): PendingRequest | undefined {
    return this.#entries.get(`${sessionKey(upstream, session)}\u0000${idKey(id)}`)?.request;
  }

  /** Remove and return the pending request this response answers, if any. */
  take(upstream: string, session: string | undefined, id: JsonRpcId): PendingRequest | undefined {
    const k = `${sessionKey(upstream, session)}\u0000${idKey(id)}`;
    const entry = this.#entries.get(k);
    if (!entry) return undefined;
    this.#entries.delete(k);
    return entry.request;
  }

  /**
   * True when the session may have responses awaiting rewrite. Expired entries are pruned at most every
   * few seconds, so a false positive costs one JSON.parse of an event, never a wrong rewrite.
   */
  hasSession(upstream: string, session: string | undefined): boolean {
    const s = sessionKey(upstream, session);
    if (!this.#perSession.has(s)) return false;
    const now = this.#now();
    if (now - this.#prunedAt > 5_000) {
      this.#prunedAt = now;
      this.#entries.prune();
    }
    return this.#perSession.has(s);
  }
}
