/**
 * The one rewrite entry point, shared by every transport, the worker's callers and `try`: a response to a
 * request that awaits rewriting goes in (parsed, or as the raw bytes the upstream sent), and what the client
 * receives comes out. Where the work runs is decided here and nowhere else:
 * - inline, for most results (a parse and a validation of a few KB);
 * - on the large-result worker, for tools/call answers over OFFLOAD_BYTES of text (parsed there too when
 *   they arrive raw, so the event loop only copies bytes);
 * - on the isolation worker, under a deadline, for tools whose extraction cannot be bounded in time on the
 *   event loop (a pattern RE2 cannot run, a YAML parse: CompiledTool.isolate). A reading stopped at its
 *   deadline is a failed reading.
 * A failed reading (a deadline, a worker crash, an engine bug) gives a client that was shown the tool's schema
 * an isError result, so a strict client never rejects it, and others what they get without a schema.
 * Outcomes are logged and counted (./report.ts) whichever way they ran. Never rejects. tools/call answers of recording upstreams are offered
 * to the recorder here too (./record.ts), as received, whichever way they are then retrofitted.
 */
import { isJsonObject, type JsonObject } from '../json.js';
import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { ToolPolicy, UpstreamPolicy } from '../retrofit/policy.js';
import { unmatchedKeyWarning } from '../config/warnings.js';
import { FirstListing } from '../policy/unmatched.js';
import { REWRITTEN_METHODS } from '../jsonrpc/classify.js';
import { rewriteToolCall, rewriteToolsList } from '../retrofit/engine.js';
import { asIfUnconfigured as unconfigured, delivered, retrofitMode } from './mode.js';
import { errorResult, failureText } from '../retrofit/outcome.js';
import { isNonFinal } from '../retrofit/result.js';
import type { LiteralTrail } from '../json-literals.js';
import { OFFLOAD_BYTES, textLength } from './offload/plan.js';
import { isolateDeadlineMs, IsolationUnavailable } from './isolation.js';
import { DeadlineExceeded, OffloadPool, type PoolAnswer, type PoolRequest } from './offload/pool.js';
import { spliceResult } from './offload/splice.js';
import { nativeJobOf } from './offload/native-job.js';
import { mismatchOf, parseResponse, stubOf } from './raw-response.js';
import { traceRequestOf, traceToolError, traceWorkerProjection, traceWorkerResult } from './trace-result.js';
import { createRecordTap, type RecordSink } from './record.js';
import { reportListed, reportOutcome, reportProfiled, reportRepairs, type Observed, type PipelineObserver, type RetrofitMode } from './report.js';
import type { PendingRequest, Rewriter, Rewritten } from './request.js';

export type { PendingRequest, RewriteInput, Rewriter, Rewritten } from './request.js';
export { ISOLATE_DEADLINE_MS } from './isolation.js';

/** createRewriter settings. */
export interface RewriterOptions {
  /** Results with more text than this go to the large-result worker (default OFFLOAD_BYTES). */
  readonly offloadBytes?: number;
  /** The large-result pool (default: one worker, started with the first large result); false: never offload. */
  readonly pool?: OffloadPool | false;
  /**
   * The isolation pool (default: one worker, booted by prepare() for a config that has isolated tools, and
   * kept booted from then on). false: isolated tools run inline on the calling
   * thread — for unit tests of the engine only; the gateway never sets it.
   */
  readonly isolatePool?: OffloadPool | false;
  /** Where tools/call answers of upstreams with `record:` go (absent: nothing is recorded). */
  readonly recorder?: RecordSink;
  /** The operator console's watch on outcomes and tools/list answers (absent: the console is off). */
  readonly observer?: PipelineObserver;
}

/** A retrofit that found nothing valid, or gave no outcome: a client shown no schema gets the answer as if unconfigured. */
function failedReading(answer: PoolAnswer): boolean {
  return !answer.outcome || answer.outcome.outcome === 'invalid' || answer.outcome.outcome === 'unparseable';
}

export function createRewriter(metrics: Metrics, options: RewriterOptions = {}): Rewriter {
  const threshold = options.offloadBytes ?? OFFLOAD_BYTES;
  // Large results wait in line for the worker however many there are: each is an answer already held (within
  // maxResultBytes), and one retrofitted inline instead would stall every other session.
  const large = options.pool === false ? undefined : (options.pool ?? new OffloadPool({ maxQueuedBytes: Infinity }));
  const isolated = options.isolatePool === false ? undefined : (options.isolatePool ?? new OffloadPool({ warm: true }));
  const record = createRecordTap(options.recorder);
  const observer = options.observer;
  /** The observer's view of one retrofit, from `started` (only made with an observer). */
  const seen = (started: number, result?: JsonObject, delivered?: JsonObject): Observed | undefined =>
    observer && { observer, started, ...(result && { result }), ...(delivered && { delivered }) };
  const loggedMissing = new Set<string>();
  // Per policy object, so a reload's new keys are judged again on the next first listing.
  const listings = new WeakMap<UpstreamPolicy, FirstListing>();

  /** The pool, if it can take jobs; says once, loudly, when it cannot. */
  function usable(pool: OffloadPool | undefined, what: string, log: Log): OffloadPool | undefined {
    if (!pool) return undefined;
    const unavailable = pool.unavailable;
    if (unavailable === undefined) return pool;
    if (!loggedMissing.has(what)) log.error({ reason: unavailable }, `retrofit worker unavailable; ${what} run on the main thread`);
    loggedMissing.add(what);
    return undefined;
  }

  /**
   * How the result reaches the client (see RetrofitMode). Shadow first: a shadowed tool is counted as such
   * for every client, whatever its revision would have shown it.
   */
  function modeOf(request: PendingRequest, policy: UpstreamPolicy, entry: ToolPolicy | undefined): RetrofitMode {
    return retrofitMode(policy, entry, request.revision, request.profile);
  }

  function asIfUnconfigured(request: PendingRequest, policy: UpstreamPolicy, tool: string, result: JsonObject): JsonObject {
    return unconfigured(policy, tool, result, request.revision, request.profile);
  }

  /** The engine, inline, for a tools/call (or tasks/result) result; `mode` decides what the client gets. */
  function callInline(request: PendingRequest, policy: UpstreamPolicy, tool: string, result: JsonObject, mode: RetrofitMode, log: Log): JsonObject {
    const started = request.trace || observer ? performance.now() : 0;
    const out = rewriteToolCall(result, tool, policy, request.revision, request.profile);
    const served = delivered(policy, tool, result, out.result, out.outcome, mode, request.revision, request.profile);
    reportOutcome(metrics, request, tool, out.outcome, log, mode, seen(started, result, served));
    if (request.trace) {
      // Traced only: what the retrofit read and produced, and what it took.
      request.trace.retrofitCost({ ms: performance.now() - started, textBytes: textLength(result, Infinity), resultBytes: Buffer.byteLength(JSON.stringify(served)) });
      request.trace.result(served);
    }
    return served;
  }

  /** A worker's answer (or failure) for a parsed message → what the client gets. */
  function fromWorker(request: PendingRequest, policy: UpstreamPolicy, tool: string, message: JsonObject, job: Promise<PoolAnswer>, mode: RetrofitMode, log: Log): Promise<Rewritten> {
    const started = request.trace || observer ? performance.now() : 0;
    return job.then(
      (answer): Rewritten => {
        const result = message.result as JsonObject;
        if (answer.outcome) reportOutcome(metrics, request, tool, answer.outcome, log, mode, seen(started, result));
        if (mode !== 'applied') {
          // Decided on this thread, where the NativeMemory of tools/list lives (see deliverable): shadow always
          // gets the projection, unseen a success as the worker's bytes and a failure the projection.
          if (failedReading(answer) || mode === 'shadow') {
            const out = asIfUnconfigured(request, policy, tool, result);
            traceWorkerResult(request, started, answer.traced, out);
            return out === result ? { kind: 'unchanged', original: message } : { kind: 'message', message: { ...message, result: out }, original: message };
          }
        }
        traceWorkerResult(request, started, answer.traced);
        return answer.bytes === undefined ? { kind: 'unchanged', original: message } : { kind: 'bytes', bytes: spliceResult(message, answer.bytes), original: message };
      },
      (err: unknown): Rewritten => failed(request, tool, message, err, log),
    );
  }

  /**
   * A retrofit that did not finish: stopped at its deadline, unable to reach its worker, or failed (a worker
   * crash, an engine bug: logged as an error). Each is a failed reading: a client that was shown the schema
   * gets the failure as isError (passing the text on would make a strict client reject it), others get what
   * they would without a schema.
   */
  function failed(request: PendingRequest, tool: string, message: JsonObject, err: unknown, log: Log): Rewritten {
    const started = observer ? performance.now() : 0;
    const unchanged: Rewritten = { kind: 'unchanged', original: message };
    const result = message.result as JsonObject;
    const policy = request.policy;
    const stopped = err instanceof DeadlineExceeded || err instanceof IsolationUnavailable;
    if (!stopped) {
      metrics.offloads.inc({ result: 'failed' });
      log.error({ err, method: request.method, tool }, 'retrofit engine failed; answered as a failed reading');
    }
    if (!policy) return unchanged;
    const reason = stopped ? (err as Error).message : `the retrofit failed (${err instanceof Error ? err.message : String(err)})`;
    try {
      const mode = modeOf(request, policy, policy.resolve(tool));
      reportOutcome(metrics, request, tool, { tool, outcome: 'unparseable', reasons: [reason] }, log, mode, seen(started, result));
      if (mode === 'applied') return { kind: 'message', message: { ...message, result: errorResult(result, failureText(tool, 'unparseable', [reason])) }, original: message };
      const out = asIfUnconfigured(request, policy, tool, result);
      return out === result ? unchanged : { kind: 'message', message: { ...message, result: out }, original: message };
    } catch (again) {
      log.error({ err: again, method: request.method, tool }, 'retrofit engine failed twice; result passed through');
      return unchanged;
    }
  }

  function respondToMessage(request: PendingRequest, message: JsonObject, log: Log, literals?: () => LiteralTrail | undefined): Rewritten | Promise<Rewritten> {
    reportProfiled(metrics, request);
    const policy = request.policy;
    const result = message.result;
    const unchanged: Rewritten = { kind: 'unchanged', original: message };
    if (!policy || !isJsonObject(result)) return unchanged;
    try {
      if (request.method === 'tools/list') {
        let listing = listings.get(policy);
        if (!listing) listings.set(policy, (listing = new FirstListing()));
        for (const w of listing.observe(result, policy)) log.warn({ key: w.key }, unmatchedKeyWarning(policy.upstream, w));
        reportListed(observer, request, result, log);
        const out = rewriteToolsList(result, policy, request.revision, request.profile);
        reportRepairs(metrics, request, out.repairs, log);
        return out.result === result ? unchanged : { kind: 'message', message: { ...message, result: out.result }, original: message };
      }
      const tool = request.tool;
      if ((request.method !== 'tools/call' && request.method !== 'tasks/result') || tool === undefined) return unchanged;
      traceToolError(request, result);
      record.parsed(request, result);
      const entry = policy.resolve(tool);
      const mode = modeOf(request, policy, entry);
      const job = entry?.compiled?.output && !isNonFinal(result) ? offload(request, policy, entry, tool, result, log, literals) : undefined;
      if (job) return fromWorker(request, policy, tool, message, job, mode, log);
      const out = callInline(request, policy, tool, result, mode, log);
      return out === result ? unchanged : { kind: 'message', message: { ...message, result: out }, original: message };
    } catch (err) {
      if (request.method !== 'tools/list' && request.tool !== undefined) return failed(request, request.tool, message, err, log);
      log.error({ err, method: request.method }, 'retrofit engine failed; result passed through');
      return unchanged;
    }
  }

  /**
   * A worker job for this result, when it should leave the event loop; undefined to run it inline. It carries
   * the result's inexact number literals (`literals`: its message's), which the worker writes back.
   */
  function offload(request: PendingRequest, policy: UpstreamPolicy, entry: ToolPolicy, tool: string, result: JsonObject, log: Log, literals?: () => LiteralTrail | undefined): Promise<PoolAnswer> | undefined {
    const isolate = Boolean(entry.compiled?.isolate);
    const bytes = textLength(result, isolate ? Infinity : threshold);
    // A small result (the usual case) runs inline: nothing is built for a job it will not need.
    if (!isolate && bytes <= threshold) return undefined;
    const trace = traceRequestOf(request);
    const kept = literals?.()?.children.get('result');
    const base: Omit<PoolRequest, 'bytes'> = { entry, policy, tool, revision: request.revision, result, ...(kept && { literals: kept }), ...(request.profile && { profile: request.profile }), ...(trace && { trace }) };
    if (isolate) {
      // Never inline on the event loop: without its worker (or over the queue bound) it is a failed reading.
      if (!isolated) return undefined;
      const pool = usable(isolated, 'isolated extractions', log);
      const job = pool?.run({ ...base, bytes, deadlineMs: isolateDeadlineMs(bytes) });
      return job ?? Promise.reject(new IsolationUnavailable(pool ? 'its queue is full' : 'it is unavailable'));
    }
    const pool = usable(large, 'large results', log);
    const job = pool?.run({ ...base, bytes });
    if (job) {
      log.debug({ tool, bytes }, 'retrofit offloaded to a worker');
      void job.then(() => metrics.offloads.inc({ result: 'worker' }), () => {});
    } else if (pool) {
      log.debug({ tool, bytes, queued: pool.queuedBytes }, 'retrofit worker queue full; retrofitted on the main thread');
    }
    if (!job) metrics.offloads.inc({ result: 'main_thread' });
    return job;
  }

  /** A raw response that qualifies goes to the large-result worker unparsed; else undefined. */
  function offloadRaw(request: PendingRequest, raw: Buffer | string, id: string | number, log: Log): Promise<Rewritten> | undefined {
    const policy = request.policy;
    const tool = request.tool;
    if (!policy || raw.length <= threshold || tool === undefined || (request.method !== 'tools/call' && request.method !== 'tasks/result')) return undefined;
    const entry = policy.resolve(tool);
    if (!entry?.compiled?.output) return undefined;
    // Whatever the client gets, the worker parses and retrofits; a client that gets the answer as if unconfigured
    // (see fromWorker) is served from the worker's miniature of it (unconfiguredRaw).
    const mode = modeOf(request, policy, entry);
    // An isolated tool's answer goes to its own worker, as a parsed one does (offload): on the large-result
    // worker its deadline would hold every other session's large answers behind it. Without that worker, or
    // over its queue bound, the answer is parsed here and offload() decides (a failed reading, or inline).
    const pool = entry.compiled.isolate ? isolated && usable(isolated, 'isolated extractions', log) : usable(large, 'large results', log);
    const trace = traceRequestOf(request);
    const job = pool?.run({ entry, policy, tool, revision: request.revision, ...(request.profile && { profile: request.profile }), message: { data: raw, id }, bytes: raw.length, ...(entry.compiled.isolate && { deadlineMs: isolateDeadlineMs(raw.length) }), ...(trace && { trace }), ...(mode !== 'applied' && { asIfUnconfigured: { spliceOver: entry.compiled.isolate ? -1 : threshold } }) });
    if (!job) return undefined;
    const started = observer || trace ? performance.now() : 0;
    // `input`: whether the bytes reached here undecoded (a large stdio line, SSE event or body) or as text.
    log.debug({ tool, bytes: raw.length, unparsed: true, input: typeof raw === 'string' ? 'text' : 'bytes' }, 'retrofit offloaded to a worker');
    return job.then(
      (answer): Rewritten | Promise<Rewritten> => {
        if (answer.mismatch) return respondToRaw(request, raw, id, log, false);
        reportProfiled(metrics, request);
        // The worker found the response in these bytes: they are what the upstream sent, unretrofitted.
        record.raw(request, raw);
        metrics.offloads.inc({ result: 'worker' });
        // The raw bytes never became a result on this thread: the console gets the outcome without its text.
        if (answer.outcome) reportOutcome(metrics, request, tool, answer.outcome, log, mode, seen(started));
        const original = stubOf(id, answer);
        // As fromWorker: shadow always gets the answer as if unconfigured, unseen a failure (a success: the worker's bytes).
        if (mode === 'shadow' || (mode === 'unseen' && failedReading(answer))) return unconfiguredRaw(request, policy, tool, raw, id, answer, original, started, log);
        traceWorkerResult(request, started, answer.traced);
        return answer.bytes === undefined ? { kind: 'unchanged', original } : { kind: 'bytes', bytes: answer.bytes, original };
      },
      // Failed or stopped: decide on the parsed message, as if it had come parsed.
      (err: unknown): Rewritten => {
        const parsed = parseResponse(raw, id);
        if (!parsed.ok) return mismatchOf(parsed);
        traceToolError(request, parsed.message.result);
        record.parsed(request, parsed.message.result);
        return failed(request, tool, parsed.message, err, log);
      },
    );
  }

  /**
   * asIfUnconfigured for a large answer the worker retrofitted (`answer`), without parsing it here: the worker's
   * miniature of the result says whether it would change it (only the upstream's own structuredContent can); a
   * change is projected on the worker (as projectNative), else, without one, decided on the message parsed here.
   */
  function unconfiguredRaw(request: PendingRequest, policy: UpstreamPolicy, tool: string, raw: Buffer | string, id: string | number, answer: PoolAnswer, original: JsonObject, started: number, log: Log): Rewritten | Promise<Rewritten> {
    const miniature = answer.miniature;
    if (miniature && asIfUnconfigured(request, policy, tool, miniature) === miniature) {
      traceWorkerProjection(request, started, answer.traced, { text: answer.traced?.sourceText, bytes: answer.traced?.sourceBytes });
      return { kind: 'unchanged', original };
    }
    const parsedHere = (): Rewritten => {
      const parsed = parseResponse(raw, id);
      if (!parsed.ok) return mismatchOf(parsed);
      const result = parsed.message.result as JsonObject;
      const out = asIfUnconfigured(request, policy, tool, result);
      traceWorkerResult(request, started, answer.traced, out);
      return out === result ? { kind: 'unchanged', original: parsed.message } : { kind: 'message', message: { ...parsed.message, result: out }, original: parsed.message };
    };
    const job = nativeJob(request, policy, tool, raw, id, log);
    if (!job) return parsedHere();
    return job.then(
      (projected): Rewritten => {
        if (projected.mismatch) return parsedHere();
        traceWorkerProjection(request, started, answer.traced, { text: projected.traced?.text, bytes: projected.traced?.resultBytes });
        return projected.bytes === undefined ? { kind: 'unchanged', original } : { kind: 'bytes', bytes: projected.bytes, original };
      },
      (err: unknown): Rewritten => {
        log.warn({ err, tool, bytes: raw.length }, 'projecting structuredContent on the worker failed; done on the event loop');
        return parsedHere();
      },
    );
  }

  /** A worker job projecting the tool's own structuredContent in `raw` as if unconfigured (NativeJob); undefined when no worker takes it. */
  function nativeJob(request: PendingRequest, policy: UpstreamPolicy, tool: string, raw: Buffer | string, id: string | number, log: Log): Promise<PoolAnswer> | undefined {
    return usable(large, 'large results', log)?.native(nativeJobOf(request, policy, tool, raw, id));
  }

  function respondToRaw(request: PendingRequest, raw: Buffer | string, id: string | number, log: Log, tryWorker: boolean): Rewritten | Promise<Rewritten> {
    const job = tryWorker ? offloadRaw(request, raw, id, log) : undefined;
    if (job) return job;
    const parsed = parseResponse(raw, id);
    if (!parsed.ok) return mismatchOf(parsed);
    return respondToMessage(request, parsed.message, log);
  }

  return {
    needsRewrite: (method) => REWRITTEN_METHODS.has(method),
    ...((large || isolated) && { rawThreshold: threshold }),
    respond(request, input, log) {
      if (input.message) return respondToMessage(request, input.message, log, input.literals);
      return respondToRaw(request, input.raw, input.id, log, true);
    },
    reshape: (data, clientId, log) => usable(large, 'large results', log)?.reshape(data, clientId),
    inspect: (data, log) => usable(large, 'large results', log)?.inspect(data),
    demux: (data, log) => usable(large, 'large results', log)?.demux(data),
    leavesUnread(request, result) {
      const { policy, tool, method } = request;
      if (!policy || !isJsonObject(result)) return true;
      if (method !== 'tools/call' && method !== 'tasks/result') return method !== 'tools/list';
      if (tool === undefined) return true;
      if (policy.resolve(tool)?.compiled?.output) return false;
      if (result.structuredContent === undefined) return true;
      // The upstream's own structuredContent: the native projection run on the worker's miniature of the result
      // (src/pipeline/offload/inspect.ts) changes it exactly when it would change the result itself.
      return rewriteToolCall(result, tool, policy, request.revision, request.profile).result === result;
    },
    projectNative(request, raw, id, log) {
      const { policy, tool } = request;
      if (!policy || tool === undefined || (request.method !== 'tools/call' && request.method !== 'tasks/result')) return undefined;
      const job = nativeJob(request, policy, tool, raw, id, log);
      if (!job) return undefined;
      const started = request.trace ? performance.now() : 0;
      log.debug({ tool, bytes: raw.length }, 'structuredContent projected on a worker');
      return job.then(
        (answer): Rewritten | Promise<Rewritten> => {
          if (answer.mismatch) return respondToRaw(request, raw, id, log, false);
          reportProfiled(metrics, request);
          record.raw(request, raw);
          traceWorkerResult(request, started, answer.traced);
          const original = stubOf(id, answer);
          return answer.bytes === undefined ? { kind: 'unchanged', original } : { kind: 'bytes', bytes: answer.bytes, original };
        },
        (err: unknown): Rewritten | Promise<Rewritten> => {
          log.warn({ err, tool, bytes: raw.length }, 'projecting structuredContent on the worker failed; done on the event loop');
          return respondToRaw(request, raw, id, log, false);
        },
      );
    },
    passedUnread(request, raw, result) {
      reportProfiled(metrics, request);
      if (!request.policy || !isJsonObject(result) || request.tool === undefined || (request.method !== 'tools/call' && request.method !== 'tasks/result')) return;
      traceToolError(request, result);
      record.raw(request, raw);
    },
    prepare(policies) {
      for (const policy of policies) {
        if (policy.isolates) return isolated?.warm();
      }
    },
    close: async () => {
      await Promise.all([large?.close(), isolated?.close()]);
    },
  };
}
