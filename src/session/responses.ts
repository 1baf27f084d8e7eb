/**
 * Matches responses coming back from an upstream to the requests that await them — by session and JSON-RPC
 * id — and applies what each needs: the rewrite hook for tools/list, tools/call and tasks/result, and for
 * initialize, remembering the session's protocolVersion. Used for JSON bodies, SSE events on the POST's own
 * stream, and events on GET streams (including Last-Event-ID replays).
 */
import { isJsonObject, type JsonObject } from '../json.js';
import type { JsonRpcId } from '../jsonrpc/classify.js';
import type { Logger } from '../log.js';
import type { PendingRequest, Rewriter } from '../pipeline/rewrite.js';
import { isRevision } from '../protocol/era.js';
import { sniffResponseId, type OverlongLine } from '../upstream/ndjson.js';
import type { PendingRequests } from './pending.js';
import type { SessionFacts } from './sessions.js';

/** What this exchange itself sent and is waiting for. */
export type LocalPending =
  | { readonly kind: 'rewrite'; readonly request: PendingRequest; readonly shared: boolean }
  | { readonly kind: 'initialize' };

/** Shared state every exchange of the gateway consults. */
export interface SessionState {
  readonly pending: PendingRequests;
  readonly facts: SessionFacts;
  readonly rewriter: Rewriter;
}

/** Head and tail of a message, enough to find its id where serialisers put it (first or last). */
function sample(data: Buffer | string): OverlongLine {
  const n = 512;
  const head = typeof data === 'string' ? data.slice(0, n) : data.subarray(0, n).toString('utf8');
  const tail = typeof data === 'string' ? data.slice(-n) : data.subarray(-n).toString('utf8');
  return { bytes: data.length, head, tail };
}

function idKey(id: JsonRpcId): string {
  return `${typeof id}:${String(id)}`;
}

/** Result of handling one message. */
export interface Handled {
  readonly message: unknown;
  readonly changed: boolean;
  /**
   * The whole rewritten message as UTF-8 JSON, when a worker already serialised it (see
   * Rewriter.rewriteLarge): send it as is; `message` is then the upstream's original.
   */
  readonly serialized?: Buffer;
}

export class ResponseMatcher {
  readonly #upstream: string;
  readonly #session: string | undefined;
  readonly #state: SessionState;
  readonly #log: Logger;
  readonly #local = new Map<string, LocalPending>();
  /** The session the upstream assigned in this exchange's response (initialize). */
  #assignedSession: string | undefined;

  constructor(upstream: string, session: string | undefined, state: SessionState, log: Logger) {
    this.#upstream = upstream;
    this.#session = session;
    this.#state = state;
    this.#log = log;
  }

  /** Register a request of this exchange. Shared ones (with a session) are also findable from GET streams. */
  expect(id: JsonRpcId, entry: LocalPending): void {
    this.#local.set(idKey(id), entry);
    if (entry.kind === 'rewrite' && entry.shared) this.#state.pending.add(this.#upstream, this.#session, id, entry.request);
  }

  /** Session id from the response headers (the initialize answer carries it). */
  assignSession(session: string | undefined): void {
    this.#assignedSession = session;
  }

  /** True when messages on this exchange may need parsing; false lets bodies stream through untouched. */
  get active(): boolean {
    return this.#local.size > 0 || this.#state.pending.hasSession(this.#upstream, this.#session);
  }

  /** Ids of this exchange's own requests still waiting for their response (in the order sent). */
  unanswered(): JsonRpcId[] {
    // Keys are `${typeof id}:${id}` (see idKey); ids are strings or numbers.
    return [...this.#local.keys()].map((key) => {
      const i = key.indexOf(':');
      return key.slice(0, i) === 'number' ? Number(key.slice(i + 1)) : key.slice(i + 1);
    });
  }

  /** Handle one parsed message from the upstream; non-responses and unmatched responses come back unchanged. */
  handle(message: unknown): Handled {
    const request = this.#match(message);
    if (!request) return { message, changed: false };
    const out = this.#state.rewriter.rewrite(request, message as JsonObject, this.#log);
    return { message: out, changed: out !== message };
  }

  /**
   * Like handle, except that a result large enough for a worker thread (Rewriter.rewriteLarge) comes back as
   * a promise. Everything else is handled synchronously, exactly as by handle. The caller keeps order.
   */
  handleDeferred(message: unknown): Handled | Promise<Handled> {
    const request = this.#match(message);
    if (!request) return { message, changed: false };
    const rewriter = this.#state.rewriter;
    const large = rewriter.rewriteLarge?.(request, message as JsonObject, this.#log);
    if (large) {
      return large.then((r): Handled => (r.serialized === undefined ? { message: r.message, changed: false } : { message: r.message, changed: true, serialized: r.serialized }));
    }
    const out = rewriter.rewrite(request, message as JsonObject, this.#log);
    return { message: out, changed: out !== message };
  }

  /**
   * For a large single response not parsed yet (a JSON body, an SSE event's data): when it answers a request
   * of ours whose result goes to a worker, the worker parses and rewrites it, and this resolves to the
   * outcome. Undefined at once when `data` does not qualify, and resolves undefined when the worker found it
   * is not what its head or tail suggested: in both cases the caller parses `data` and calls handleDeferred.
   */
  handleRaw(data: Buffer | string): Promise<Handled | undefined> | undefined {
    const rewriter = this.#state.rewriter;
    if (rewriter.offloadBytes === undefined || data.length <= rewriter.offloadBytes || !rewriter.rewriteRaw) return undefined;
    const id = sniffResponseId(sample(data));
    if (id === undefined) return undefined;
    const local = this.#local.get(idKey(id));
    const request = local ? (local.kind === 'rewrite' ? local.request : undefined) : this.#state.pending.peek(this.#upstream, this.#session, id);
    if (!request) return undefined;
    const raw = rewriter.rewriteRaw(request, data, id, this.#log);
    if (!raw) return undefined;
    return raw.then((r): Handled | undefined => {
      if (r.mismatch) return undefined;
      // The bookkeeping handle() would have done (the stub carries id and result.task); gone meanwhile: parse.
      if (!this.#match(r.stub)) return undefined;
      return r.serialized === undefined ? { message: r.stub, changed: false } : { message: r.stub, changed: true, serialized: r.serialized };
    });
  }

  /** The request a response answers, when it is one to rewrite (its bookkeeping done); else undefined. */
  #match(message: unknown): PendingRequest | undefined {
    if (!isJsonObject(message) || message.method !== undefined || !('result' in message || 'error' in message)) return undefined;
    const id = message.id;
    if (!(typeof id === 'string' || typeof id === 'number')) return undefined;
    const local = this.#local.get(idKey(id));
    let request: PendingRequest | undefined;
    if (local) {
      this.#local.delete(idKey(id));
      if (local.kind === 'initialize') {
        this.#initialized(message);
        return undefined;
      }
      // Shared entries stay matchable for replays of this response on a resumed GET stream.
      if (local.shared) this.#state.pending.answer(this.#upstream, this.#session, id);
      request = local.request;
    } else {
      request = this.#state.pending.answer(this.#upstream, this.#session, id);
    }
    if (!request) return undefined;
    this.#rememberTask(request, message);
    return request;
  }

  #initialized(message: JsonObject): void {
    const result = message.result;
    const session = this.#assignedSession ?? this.#session;
    if (!isJsonObject(result) || !isRevision(result.protocolVersion) || session === undefined) return;
    this.#state.facts.rememberRevision(this.#upstream, session, result.protocolVersion);
  }

  /** A tools/call answered with a task: remember which tool, so its tasks/result can be rewritten too. */
  #rememberTask(request: PendingRequest, message: JsonObject): void {
    if (request.method !== 'tools/call' || request.tool === undefined) return;
    const result = message.result;
    const task = isJsonObject(result) ? result.task : undefined;
    if (isJsonObject(task) && typeof task.taskId === 'string') {
      this.#state.facts.rememberTask(this.#upstream, this.#session, task.taskId, request.tool);
    }
  }
}
