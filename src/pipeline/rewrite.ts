/**
 * The one hook where responses are rewritten, shared by every transport. The transport matches a response
 * to its request (by session + JSON-RPC id) and calls `rewrite`; this module calls the pure engine, then logs
 * and counts what happened.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { UpstreamPolicy } from '../policy/types.js';
import { FirstListing, warningText } from '../policy/unmatched.js';
import { REWRITTEN_METHODS } from '../jsonrpc/classify.js';
import { OFFLOAD_BYTES, planOffload } from '../offload/plan.js';
import { OffloadPool } from '../offload/pool.js';
import { spliceResult } from '../offload/splice.js';
import { rewriteToolCall, rewriteToolsList, type CallOutcome } from '../retrofit/engine.js';

/** What the transport remembers about a request until its response arrives. */
export interface PendingRequest {
  readonly upstream: string;
  readonly method: string;
  /** tools/call: the tool name; tasks/result: the tool that created the task, when known. */
  readonly tool?: string;
  /** The revision governing this request (see src/protocol/era.ts). */
  readonly revision: string;
  /**
   * The upstream's policy when the request was sent (`Rewriter.policyOf`), so a request in flight across a
   * config reload is answered by the generation it started on. Absent: the current policy.
   */
  readonly policy?: UpstreamPolicy;
}

export interface Rewriter {
  /** True when responses to this method must be parsed and may be rewritten; all others stream through. */
  needsRewrite(method: string): boolean;
  /** The upstream's current policy, to stamp on a PendingRequest when it is sent. */
  policyOf(upstream: string): UpstreamPolicy | undefined;
  /**
   * Rewrite one JSON-RPC response message (already parsed). Returns the same object when nothing changed.
   * Never throws: an engine failure is logged and the original message is returned.
   */
  rewrite(request: PendingRequest, message: JsonObject, log: Logger): JsonObject;
  /**
   * For a tools/call or tasks/result answer large enough to be retrofitted on a worker thread: a promise of
   * the outcome (never rejects; a worker failure is logged and the original message comes back). Undefined
   * when the message takes the synchronous path: call `rewrite`. Callers keep their stream's order.
   */
  rewriteLarge?(request: PendingRequest, message: JsonObject, log: Logger): Promise<Rewritten> | undefined;
  /**
   * Bodies or SSE data longer than this may go to `rewriteRaw` unparsed (absent: never). A cheap length check
   * so that small messages pay nothing.
   */
  readonly offloadBytes?: number;
  /**
   * Like rewriteLarge for a response not parsed yet (`data`, believed to answer `id`): the worker parses it
   * too. Undefined when it does not qualify (the caller parses it and goes on as usual). Never rejects.
   */
  rewriteRaw?(request: PendingRequest, data: Buffer | string, id: string | number, log: Logger): Promise<RawRewritten> | undefined;
  /** Stop background workers (the app's close calls it). */
  close?(): Promise<void>;
}

/**
 * What `rewriteRaw` gives back: `mismatch` (not a response with that id and a result, or the worker
 * failed: parse it on the main thread), or the response's bookkeeping `stub` (id, result.task) and, when
 * the result changed, the whole rewritten message as UTF-8 JSON.
 */
export type RawRewritten = { readonly mismatch: true } | { readonly mismatch?: undefined; readonly stub: JsonObject; readonly serialized?: Buffer };

/** What `rewriteLarge` gives back. */
export interface Rewritten {
  /** The message as received: unchanged when `serialized` is absent. */
  readonly message: JsonObject;
  /** The whole rewritten message as UTF-8 JSON, already serialised by the worker (send it as is). */
  readonly serialized?: Buffer;
}

/** createRewriter settings. */
export interface RewriterOptions {
  /** Results with more text than this go to a worker (default OFFLOAD_BYTES). */
  readonly offloadBytes?: number;
  /** The worker pool (default: one worker, started on the first large result); false: never offload. */
  readonly pool?: OffloadPool | false;
}

export function createRewriter(
  policies: ReadonlyMap<string, UpstreamPolicy>,
  metrics: Metrics,
  options: RewriterOptions = {},
): Rewriter {
  const threshold = options.offloadBytes ?? OFFLOAD_BYTES;
  const pool = options.pool === false ? undefined : (options.pool ?? new OffloadPool());
  let missingLogged = false;
  // Per policy object, so a reload's new keys are judged again on the next first listing.
  const listings = new WeakMap<UpstreamPolicy, FirstListing>();

  function report(request: PendingRequest, tool: string, outcome: CallOutcome, log: Logger): void {
    if (outcome.outcome === 'untouched') return;
    const { format, reasons } = outcome;
    metrics.retrofits.inc({ upstream: request.upstream, tool, outcome: outcome.outcome, format: format ?? '' });
    const level = outcome.outcome === 'invalid' || outcome.outcome === 'unparseable' ? 'warn' : 'debug';
    log[level]({ upstream: request.upstream, tool, outcome: outcome.outcome, format, reasons, revision: request.revision }, 'retrofit');
  }

  return {
    needsRewrite: (method) => REWRITTEN_METHODS.has(method),
    policyOf: (upstream) => policies.get(upstream),
    rewrite(request, message, log) {
      const policy = request.policy ?? policies.get(request.upstream);
      const result = message.result;
      if (!policy || !isJsonObject(result)) return message;
      try {
        if (request.method === 'tools/list') {
          const out = rewriteToolsList(result, policy, request.revision);
          let listing = listings.get(policy);
          if (!listing) listings.set(policy, (listing = new FirstListing()));
          for (const w of listing.observe(result, policy)) log.warn({ key: w.key }, warningText(policy.upstream, w));
          for (const repair of out.repairs) {
            metrics.repairs.inc({ upstream: request.upstream, tool: repair.tool, kind: repair.kind });
            // Logged once per upstream, tool and repair at info; repeats of the same list go to debug.
            log[repair.repeat ? 'debug' : 'info']({ upstream: request.upstream, tool: repair.tool, repair: repair.kind, detail: repair.detail }, 'tool definition repaired');
          }
          return out.result === result ? message : { ...message, result: out.result };
        }
        if ((request.method === 'tools/call' || request.method === 'tasks/result') && request.tool !== undefined) {
          const out = rewriteToolCall(result, request.tool, policy, request.revision);
          report(request, request.tool, out.outcome, log);
          return out.result === result ? message : { ...message, result: out.result };
        }
      } catch (err) {
        log.error({ err, upstream: request.upstream, method: request.method }, 'retrofit engine failed; result passed through');
      }
      return message;
    },
    rewriteLarge(request, message, log) {
      const policy = request.policy ?? policies.get(request.upstream);
      if (!pool || !policy) return undefined;
      const plan = planOffload(request, policy, message, threshold);
      if (!plan) return undefined;
      const unavailable = pool.unavailable;
      if (unavailable !== undefined) {
        // Loud, once: a gateway without its worker still answers correctly, on the main thread.
        if (!missingLogged) log.error({ reason: unavailable }, 'retrofit worker unavailable; large results are retrofitted on the main thread');
        missingLogged = true;
        metrics.offloads.inc({ result: 'main_thread' });
        return undefined;
      }
      const job = pool.run({ ...plan, policy, revision: request.revision });
      if (!job) {
        // Over the queue bound: the bytes already waiting are the memory worth holding; this one runs here.
        metrics.offloads.inc({ result: 'main_thread' });
        log.debug({ upstream: request.upstream, tool: plan.tool, bytes: plan.bytes, queued: pool.queuedBytes }, 'retrofit worker queue full; retrofitted on the main thread');
        return undefined;
      }
      log.debug({ upstream: request.upstream, tool: plan.tool, bytes: plan.bytes }, 'retrofit offloaded to a worker');
      return job.then(
        (answer): Rewritten => {
          metrics.offloads.inc({ result: 'worker' });
          if (answer.outcome) report(request, plan.tool, answer.outcome, log);
          return answer.bytes === undefined ? { message } : { message, serialized: spliceResult(message, answer.bytes) };
        },
        (err: unknown): Rewritten => {
          metrics.offloads.inc({ result: 'failed' });
          log.error({ err, upstream: request.upstream, method: request.method, tool: plan.tool }, 'retrofit engine failed; result passed through');
          return { message };
        },
      );
    },
    ...(pool && { offloadBytes: threshold }),
    rewriteRaw(request, data, id, log) {
      const policy = request.policy ?? policies.get(request.upstream);
      if (!pool || !policy || data.length <= threshold || pool.unavailable !== undefined) return undefined;
      if ((request.method !== 'tools/call' && request.method !== 'tasks/result') || request.tool === undefined) return undefined;
      const entry = policy.resolve(request.tool);
      if (!entry || entry.config.outputSchema === undefined) return undefined;
      const tool = request.tool;
      // The worker gets its own copy of the bytes (a structured clone); the caller keeps the original to forward.
      const job = pool.run({ entry, policy, tool, revision: request.revision, message: { data, id }, bytes: data.length });
      if (!job) return undefined;
      log.debug({ upstream: request.upstream, tool, bytes: data.length, unparsed: true }, 'retrofit offloaded to a worker');
      return job.then(
        (answer): RawRewritten => {
          if (answer.mismatch || !answer.stub) return { mismatch: true };
          metrics.offloads.inc({ result: 'worker' });
          if (answer.outcome) report(request, tool, answer.outcome, log);
          return { stub: answer.stub, ...(answer.bytes && { serialized: answer.bytes }) };
        },
        (err: unknown): RawRewritten => {
          metrics.offloads.inc({ result: 'failed' });
          log.error({ err, upstream: request.upstream, method: request.method, tool }, 'retrofit engine failed; result passed through');
          // The original bytes pass through; the stub only settles the bookkeeping.
          return { stub: { jsonrpc: '2.0', id, result: {} } };
        },
      );
    },
    close: async () => pool?.close(),
  };
}
