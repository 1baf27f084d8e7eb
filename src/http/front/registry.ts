/**
 * The gateway-owned sessions of one upstream: found by Mcp-Session-Id, capped (`maxSessions`, legacy SSE
 * connections of the upstream included: beyond it a new session gets 503), closed when idle (`idleTimeoutMs` without an HTTP exchange and nothing in flight),
 * ticked for keep-alives (one timer for all of them), told about tool changes, drained on shutdown.
 */
import { RetrofitError } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import type { SessionWatch } from '../../session/watch.js';
import type { FrontSession } from './session.js';

/** Keep-alive interval of waiting answers and open streams (ms), as the SDK servers'. */
export const KEEP_ALIVE_MS = 15_000;

export interface RegistryOptions {
  readonly upstream: string;
  /** Bound to the upstream. */
  readonly log: Logger;
  readonly metrics: Metrics;
  /** Read when a session is created / touched: a reload may change them. */
  readonly maxSessions: () => number;
  readonly idleTimeoutMs: () => number;
  /** Keep-alive interval (tests shorten it). */
  readonly keepAliveMs?: number;
  /** A session ended, after `seconds` (telemetry's mcp.server.session.duration). */
  readonly onEnded?: (seconds: number, session: FrontSession) => void;
  /** Told of each session added and forgotten (the operator console). */
  readonly watch?: SessionWatch;
}

interface Entry {
  readonly session: FrontSession;
  idle: NodeJS.Timeout | undefined;
  /** performance.now() when it was added. */
  readonly started: number;
}

export class FrontSessions {
  readonly #options: RegistryOptions;
  readonly #sessions = new Map<string, Entry>();
  /** Sessions that are closing: their links still count until gone. */
  readonly #closing = new Set<Promise<void>>();
  /** Sessions held outside this registry that count towards maxSessions (legacy SSE connections). */
  #held = 0;
  #ticker: NodeJS.Timeout | undefined;
  #shuttingDown = false;

  constructor(options: RegistryOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** Sessions, the requests they wait on, their unfinished answer streams, and sessions still closing. */
  counts(): { sessions: number; pending: number; streams: number; closing: number } {
    let pending = 0;
    let streams = 0;
    for (const { session } of this.#sessions.values()) {
      pending += session.owned.state.pending.size;
      streams += session.streams;
    }
    return { sessions: this.#sessions.size, pending, streams, closing: this.#closing.size };
  }

  /** Sessions in creation order. */
  all(): FrontSession[] {
    return [...this.#sessions.values()].map((e) => e.session);
  }

  /**
   * Room for one more session, or the error to answer with. A session still closing counts until its link is
   * gone (a child that ignores SIGTERM lives out its kill grace): ended sessions never let the children of an
   * upstream outnumber maxSessions.
   */
  admit(): RetrofitError | undefined {
    if (this.#shuttingDown) return new RetrofitError('RETROFIT_ERR_SHUTTING_DOWN');
    const max = this.#options.maxSessions();
    if (this.#sessions.size + this.#held + this.#closing.size >= max) return new RetrofitError('RETROFIT_ERR_TOO_MANY_SESSIONS', [this.#options.upstream, max]);
    return undefined;
  }

  /**
   * Resolves once admit() may pass, or the reason it cannot is not a session still closing, or after `limitMs`
   * (the request's own timeout: a link whose close never ends cannot hold a new session forever). A closing
   * session's place is free once its link is gone, which its kill grace bounds: a client that ended a session and
   * starts another at once (the usual reconnect) is not refused for the old child's last milliseconds. Call
   * admit() right after, in the same turn as the session's add(), so two waiters never both take one place.
   */
  async room(limitMs: number): Promise<void> {
    if (!this.#waitsForClosing()) return;
    let timer: NodeJS.Timeout | undefined;
    let late = false;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        late = true;
        resolve();
      }, limitMs);
    });
    try {
      while (!late && this.#waitsForClosing()) {
        this.#options.log.debug({ closing: this.#closing.size }, 'a new session waits for the place of a session still closing');
        await Promise.race([limit, ...this.#closing]);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sessions still closing are all that keeps admit() from passing. */
  #waitsForClosing(): boolean {
    return !this.#shuttingDown && this.#closing.size > 0 && this.#sessions.size + this.#held < this.#options.maxSessions() && this.admit() !== undefined;
  }

  /**
   * Count a session held elsewhere (a legacy SSE connection) towards maxSessions until the returned function
   * is called (once; later calls do nothing). Call admit() first.
   */
  hold(): () => void {
    this.#held += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#held -= 1;
    };
  }

  add(session: FrontSession): void {
    this.#sessions.set(session.id, { session, idle: undefined, started: performance.now() });
    this.#options.metrics.sessions.inc({ upstream: this.#options.upstream });
    this.#options.watch?.opened(this.#options.upstream, session.id, session.owned.state);
    this.touch(session);
    this.#ticker ??= setInterval(() => this.#tick(), this.#options.keepAliveMs ?? KEEP_ALIVE_MS).unref();
  }

  get(id: string): FrontSession | undefined {
    const entry = this.#sessions.get(id);
    return entry && !entry.session.closed ? entry.session : undefined;
  }

  /** An HTTP exchange of the session: it is not idle. */
  touch(session: FrontSession): void {
    const entry = this.#sessions.get(session.id);
    if (!entry) return;
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = setTimeout(() => {
      // A long tool call is not idleness: look again later.
      if (session.owned.state.pending.size > 0) return this.touch(session);
      void this.close(session, 'idle timeout');
    }, this.#options.idleTimeoutMs());
    entry.idle.unref();
  }

  /** Close one session and forget it. */
  close(session: FrontSession, reason: string): Promise<void> {
    this.#forget(session);
    const closing = session.close(reason);
    this.#closing.add(closing);
    void closing.finally(() => this.#closing.delete(closing));
    return closing;
  }

  /** The session's link ended by itself: forget it (its streams were told). */
  ended(session: FrontSession): void {
    if (this.#sessions.has(session.id)) void this.close(session, 'upstream ended');
  }

  /** Put a message of the gateway's own on every session's server stream; returns how many got it. */
  notifyAll(json: string): number {
    for (const { session } of this.#sessions.values()) session.notify(json);
    return this.#sessions.size;
  }

  /** Graceful shutdown: no new sessions; in-flight requests get up to `graceMs`; then every session closes. */
  async drain(graceMs: number): Promise<void> {
    this.#shuttingDown = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.all().map((s) => s.settled())),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    await this.closeAll('shutting down');
  }

  /** Close every session and wait until every link is gone. */
  async closeAll(reason: string): Promise<void> {
    this.#shuttingDown = true;
    await Promise.all(this.all().map((s) => this.close(s, reason)));
    await Promise.all([...this.#closing]);
    clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  #forget(session: FrontSession): void {
    const entry = this.#sessions.get(session.id);
    if (!entry) return;
    if (entry.idle) clearTimeout(entry.idle);
    this.#sessions.delete(session.id);
    this.#options.onEnded?.((performance.now() - entry.started) / 1000, session);
    this.#options.metrics.sessions.dec({ upstream: this.#options.upstream });
    this.#options.watch?.closed(session.owned.state);
  }

  #tick(): void {
    for (const { session } of this.#sessions.values()) session.tick();
  }
}
