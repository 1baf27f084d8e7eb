/**
 * What one stdio session is waiting for: its requests in flight (to match the child's answers and rewrite
 * them), the progress tokens they carried (to route progress to the right stream), the tool behind each task
 * (so tasks/result is retrofitted like the call that created it), and who waits for the session to go quiet.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import type { JsonRpcId } from '../jsonrpc/classify.js';
import type { PendingRequest } from '../pipeline/rewrite.js';

/** A request sent to the child, until its answer is delivered. */
export interface InFlightRequest extends PendingRequest {
  /** performance.now() when it was sent (for the latency metric). */
  readonly started: number;
}

export class SessionRequests {
  readonly #pending = new Map<JsonRpcId, InFlightRequest>();
  /** progressToken → id of the request that carried it. */
  readonly #progress = new Map<unknown, JsonRpcId>();
  /** taskId → tool. */
  readonly #taskTools = new Map<string, string>();
  readonly #settledWaiters: (() => void)[] = [];

  get size(): number {
    return this.#pending.size;
  }

  has(id: JsonRpcId): boolean {
    return this.#pending.has(id);
  }

  get(id: JsonRpcId): InFlightRequest | undefined {
    return this.#pending.get(id);
  }

  ids(): JsonRpcId[] {
    return [...this.#pending.keys()];
  }

  /** A request went to the child; `progressToken` is the one its `_meta` carried, if any. */
  add(id: JsonRpcId, request: InFlightRequest, progressToken: unknown): void {
    this.#pending.set(id, request);
    if (progressToken !== undefined && progressToken !== null) this.#progress.set(progressToken, id);
  }

  /** Forget a request that got its answer (or never will), and wake settled() waiters when none is left. */
  release(id: JsonRpcId): void {
    this.#pending.delete(id);
    for (const [token, owner] of this.#progress) if (owner === id) this.#progress.delete(token);
    if (this.#pending.size === 0) for (const wake of this.#settledWaiters.splice(0)) wake();
  }

  /** Resolves once no request is in flight. */
  settled(): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#settledWaiters.push(resolve));
  }

  /**
   * The request a notification or server→client request belongs to: the one whose progress token it carries,
   * else — a stdio server works for the requests in flight — the only one in flight. Otherwise none (it goes
   * on the session's GET stream).
   */
  relatedTo(message: JsonObject): JsonRpcId | undefined {
    const params = isJsonObject(message.params) ? message.params : undefined;
    const token = message.method === 'notifications/progress' ? params?.progressToken : isJsonObject(params?._meta) ? params._meta.progressToken : undefined;
    const byToken = token === undefined ? undefined : this.#progress.get(token);
    if (byToken !== undefined) return byToken;
    if (this.#pending.size === 1) return this.#pending.keys().next().value;
    return undefined;
  }

  /** A tools/call was answered with a task: remember its tool. */
  rememberTask(taskId: string, tool: string): void {
    this.#taskTools.set(taskId, tool);
  }

  toolOfTask(taskId: string): string | undefined {
    return this.#taskTools.get(taskId);
  }
}
