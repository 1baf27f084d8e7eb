/**
 * All live sessions of one stdio upstream: creates them (one child each), finds them by Mcp-Session-Id,
 * keeps the sessions gauge, remembers the last spawn failure for /readyz, and closes them all on shutdown.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { JsonObject } from '../json.js';
import type { StdioUpstreamConfig } from '../config/types.js';
import type { GatewayDeps } from '../http/deps.js';
import type { ChildExit } from './stdio-child.js';
import { checkSpawnable, childCwd, childEnv } from './stdio-env.js';
import { StdioSession } from './stdio-session.js';

/** Tunables for stdio sessions; all have defaults. */
export interface StdioOptions {
  /** A session with no HTTP activity and nothing pending for this long is closed (default 15 minutes). */
  readonly idleTimeoutMs?: number;
  /** Grace between SIGTERM and SIGKILL when stopping a child (default 5 s). */
  readonly killTimeoutMs?: number;
  /** Longest accepted stdout line; default `config.limits.maxResultBytes`. */
  readonly maxLineBytes?: number;
  /** On app close, how long in-flight requests may take before their sessions are closed (default 10 s). */
  readonly shutdownGraceMs?: number;
  /** Keep-alive interval for requests waiting on the child (default 15 s, as the SDK transport's SSE streams). */
  readonly keepAliveMs?: number;
}

export const STDIO_DEFAULTS = Object.freeze({ idleTimeoutMs: 15 * 60_000, killTimeoutMs: 5_000, shutdownGraceMs: 10_000, keepAliveMs: 15_000 });

export class StdioPool {
  private readonly sessions = new Map<string, StdioSession>();
  /** Sessions whose initialize is in flight or which are closing: their children still count. */
  private readonly all = new Set<StdioSession>();
  private readonly upstream: StdioUpstreamConfig;
  private readonly deps: GatewayDeps;
  private readonly options: Required<StdioOptions>;
  private readonly env: Readonly<Record<string, string>>;
  private readonly cwd: string;
  private lastSpawnFailure: string | undefined;
  private shuttingDown = false;
  private readonly explicitMaxLineBytes: number | undefined;

  constructor(upstream: StdioUpstreamConfig, deps: GatewayDeps, options: StdioOptions = {}) {
    this.upstream = upstream;
    this.deps = deps;
    this.options = {
      idleTimeoutMs: options.idleTimeoutMs ?? STDIO_DEFAULTS.idleTimeoutMs,
      killTimeoutMs: options.killTimeoutMs ?? STDIO_DEFAULTS.killTimeoutMs,
      maxLineBytes: options.maxLineBytes ?? deps.config.limits.maxResultBytes,
      shutdownGraceMs: options.shutdownGraceMs ?? STDIO_DEFAULTS.shutdownGraceMs,
      keepAliveMs: options.keepAliveMs ?? STDIO_DEFAULTS.keepAliveMs,
    };
    this.explicitMaxLineBytes = options.maxLineBytes;
    this.env = childEnv(upstream);
    this.cwd = childCwd(upstream, deps.config);
  }

  /** A new, not yet initialized session; its child starts when the transport accepts the initialize. */
  create(): StdioSession {
    const labels = { upstream: this.upstream.name };
    const session: StdioSession = new StdioSession({
      upstream: this.upstream,
      deps: this.deps,
      env: this.env,
      cwd: this.cwd,
      ...this.options,
      // Without an explicit bound, each new session takes the current limits.maxResultBytes (hot reload).
      maxLineBytes: this.explicitMaxLineBytes ?? this.deps.config.limits.maxResultBytes,
      onOpen: (s) => {
        if (s.id === undefined) return;
        this.sessions.set(s.id, s);
        this.all.add(s);
        this.deps.metrics.sessions.inc(labels);
        // A shutdown that raced this initialize must not leave its child behind.
        if (this.shuttingDown) void s.close('shutting down');
      },
      onClose: (s) => {
        if (s.id !== undefined && this.sessions.get(s.id) === s) {
          this.sessions.delete(s.id);
          this.deps.metrics.sessions.dec(labels);
        }
        // Called from inside close(), so this is the pending close: forget the session once its child is gone.
        void s.close('session closed').then(() => this.all.delete(s));
      },
      onSpawn: () => (this.lastSpawnFailure = undefined),
      onSpawnFailure: (exit: ChildExit) => (this.lastSpawnFailure = exit.reason),
    });
    return session;
  }

  /** The open session with this id, if any. */
  get(id: string): StdioSession | undefined {
    const session = this.sessions.get(id);
    return session && !session.closed ? session : undefined;
  }

  get shutdownGraceMs(): number {
    return this.options.shutdownGraceMs;
  }

  /** Pids of the children currently running. */
  pids(): number[] {
    const out: number[] = [];
    for (const session of this.all) if (session.pid !== undefined) out.push(session.pid);
    return out;
  }

  /**
   * Send a server notification to every open session; the SDK transport puts it on the session's GET stream
   * and drops it when the client has none open. Returns the number of sessions addressed.
   */
  notifyAll(message: JsonObject): number {
    let sent = 0;
    for (const session of this.sessions.values()) {
      if (session.closed) continue;
      // The SDK's message type is a zod inference; this is a plain JSON-RPC notification.
      session.transport.send(message as unknown as JSONRPCMessage).catch(() => {});
      sent += 1;
    }
    return sent;
  }

  /** Number of open sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** /readyz: the command must be spawnable, and the last spawn attempt must not have failed. */
  async ready(): Promise<{ ok: boolean; detail?: string }> {
    const check = await checkSpawnable(this.upstream.command, this.cwd, this.env);
    if (!check.ok) return check;
    if (this.lastSpawnFailure !== undefined) return { ok: false, detail: `last spawn failed: ${this.lastSpawnFailure}` };
    return { ok: true };
  }

  /**
   * Graceful shutdown: no new sessions, GET streams ended, in-flight requests get up to `graceMs` to be
   * answered; then every session is closed (what is still pending gets an error) and every child stopped.
   */
  async drain(graceMs: number): Promise<void> {
    this.shuttingDown = true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all([...this.all].map((s) => s.settled())),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs))),
    ]);
    clearTimeout(timer);
    await this.close();
  }

  /** Close every session and wait for every child to be gone. */
  async close(): Promise<void> {
    this.shuttingDown = true;
    await Promise.all([...this.all].map((s) => s.close('shutting down')));
    this.all.clear();
  }
}
