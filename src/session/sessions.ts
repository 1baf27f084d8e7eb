/**
 * What the gateway remembers per upstream session: the protocolVersion of its InitializeResult (the third
 * source of the governing revision) and which tool created each task, so `tasks/result` can be rewritten.
 * Bounded; forgotten on DELETE and when the upstream answers 404 for the session.
 */
import type { Metrics } from '../metrics.js';
import { Lru } from './lru.js';

/** Options for SessionFacts. */
export interface SessionFactsOptions {
  readonly maxSessions?: number;
  readonly maxTasks?: number;
  /** Tasks are forgotten after this long (ms). */
  readonly taskTtlMs?: number;
  readonly metrics?: Metrics;
  readonly now?: () => number;
}

interface SessionEntry {
  readonly upstream: string;
  readonly revision: string;
}

function key(upstream: string, session: string): string {
  return `${upstream}\u0000${session}`;
}

export class SessionFacts {
  readonly #sessions: Lru<SessionEntry>;
  readonly #tasks: Lru<string>;

  constructor(options: SessionFactsOptions = {}) {
    const metrics = options.metrics;
    this.#sessions = new Lru<SessionEntry>({
      max: options.maxSessions ?? 10_000,
      ...(options.now && { now: options.now }),
      onRemove: (_k, entry) => metrics?.sessions.dec({ upstream: entry.upstream }),
    });
    this.#tasks = new Lru<string>({
      max: options.maxTasks ?? 10_000,
      ttlMs: options.taskTtlMs ?? 24 * 3600_000,
      ...(options.now && { now: options.now }),
    });
    this.#metrics = metrics;
  }

  readonly #metrics: Metrics | undefined;

  /** Remember the InitializeResult's protocolVersion for this session. */
  rememberRevision(upstream: string, session: string, revision: string): void {
    // set() on an existing key runs onRemove (dec) first, so one inc keeps the gauge right.
    this.#sessions.set(key(upstream, session), { upstream, revision });
    this.#metrics?.sessions.inc({ upstream });
  }

  revisionOf(upstream: string, session: string | undefined): string | undefined {
    if (session === undefined) return undefined;
    return this.#sessions.get(key(upstream, session))?.revision;
  }

  /** Forget everything about a session (DELETE, or the upstream said 404). */
  forget(upstream: string, session: string): void {
    this.#sessions.delete(key(upstream, session));
  }

  /** Remember that a tools/call in this session created a task. */
  rememberTask(upstream: string, session: string | undefined, taskId: string, tool: string): void {
    this.#tasks.set(`${key(upstream, session ?? '')}\u0000${taskId}`, tool);
  }

  toolOfTask(upstream: string, session: string | undefined, taskId: string): string | undefined {
    return this.#tasks.get(`${key(upstream, session ?? '')}\u0000${taskId}`);
  }
}
