/**
 * The sessions of proxied Streamable HTTP upstreams the gateway has seen, by upstream and Mcp-Session-Id:
 * their revisions, the requests whose answers may be rewritten (kept a while after the answer, for replays
 * on a resumed GET stream), their tasks. The upstream owns these sessions (but those the gateway minted for a
 * client profile, the upstream issuing none: src/http/proxy/minted.ts); this is only what the gateway learnt of
 * them, bounded (least recently used first out), and forgotten on DELETE or when the upstream answers 404 for
 * the session. Another replica may hold another part: nothing here is needed for a request
 * to be served right, only to skip work (see src/protocol/negotiate.ts for the header rule).
 */
import type { Metrics } from '../metrics.js';
import { Lru } from './lru.js';
import { SessionState, type SessionStateOptions } from './state.js';
import type { SessionWatch } from './watch.js';

/** How long a proxied request waits for its answer before it is forgotten (ms). */
const PENDING_TTL_MS = 15 * 60_000;
/** How long an answered request stays matchable for replays of its answer (ms). */
const RETAIN_ANSWERED_MS = 120_000;

/** SessionTable.stateOptions, by upstream name and bridge setting (a few per config). */
const STATE_OPTIONS = new Map<string, Map<boolean, SessionStateOptions>>();

export interface SessionTableOptions {
  /** Most sessions remembered across all upstreams (default 10 000). */
  readonly max?: number;
  readonly metrics?: Metrics;
  /** Told of each session opened and forgotten (the operator console). */
  readonly watch?: SessionWatch;
}

export class SessionTable {
  readonly #sessions: Lru<SessionState>;
  readonly #metrics: Metrics | undefined;
  readonly #watch: SessionWatch | undefined;

  constructor(options: SessionTableOptions = {}) {
    this.#metrics = options.metrics;
    this.#watch = options.watch;
    this.#sessions = new Lru<SessionState>({
      max: options.max ?? 10_000,
      onRemove: (_key, state) => {
        this.#metrics?.sessions.dec({ upstream: state.upstream });
        this.#watch?.closed(state);
      },
    });
  }

  /**
   * The options every proxied session's state gets (also for an exchange without a session): one frozen
   * object per upstream and bridge setting, since every session-less POST asks for them.
   */
  static stateOptions(upstream: string, bridge: boolean): SessionStateOptions {
    const byBridge = STATE_OPTIONS.get(upstream) ?? new Map<boolean, SessionStateOptions>();
    let options = byBridge.get(bridge);
    if (options) return options;
    options = Object.freeze({ upstream, bridge, pending: Object.freeze({ ttlMs: PENDING_TTL_MS, retainAnsweredMs: RETAIN_ANSWERED_MS }) });
    byBridge.set(bridge, options);
    STATE_OPTIONS.set(upstream, byBridge);
    return options;
  }

  /** Sessions remembered (all upstreams). */
  get size(): number {
    return this.#sessions.size;
  }

  /** Requests awaited over all sessions (the debug endpoint's count; a walk over every session). */
  pending(): number {
    let n = 0;
    for (const state of this.#sessions.values()) n += state.pending.size;
    return n;
  }

  /** The state of a known session, if any. */
  get(upstream: string, session: string): SessionState | undefined {
    return this.#sessions.get(`${upstream}\u0000${session}`);
  }

  /** The state of a session, created (and counted) when first seen. */
  open(upstream: string, session: string, bridge: boolean): SessionState {
    const key = `${upstream}\u0000${session}`;
    let state = this.#sessions.get(key);
    if (!state) {
      state = new SessionState(SessionTable.stateOptions(upstream, bridge));
      this.#sessions.set(key, state);
      this.#metrics?.sessions.inc({ upstream });
      this.#watch?.opened(upstream, session, state);
    }
    return state;
  }

  /** The state of a session, and whether this call made its entry (the gateway had not seen the session). */
  take(upstream: string, session: string, bridge: boolean): { readonly state: SessionState; readonly created: boolean } {
    const known = this.get(upstream, session);
    return known ? { state: known, created: false } : { state: this.open(upstream, session, bridge), created: true };
  }

  /**
   * Forget a session whose entry an exchange made and whose client then left: it learnt nothing, and may be of
   * a session the client deleted meanwhile. Kept while another request of the session awaits its answer there.
   */
  dropIfIdle(upstream: string, session: string): void {
    if (this.get(upstream, session)?.pending.size === 0) this.forget(upstream, session);
  }

  /** Forget a session (DELETE, or the upstream said 404). */
  forget(upstream: string, session: string): void {
    this.#sessions.delete(`${upstream}\u0000${session}`);
  }
}
