/**
 * Logging and counting what the engine did, in one place for every path (inline, worker, failed worker).
 * The logger is the caller's, already bound to upstream, session and request: nothing here adds those again.
 */
import type { JsonObject } from '../json.js';
import type { Log } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { CallOutcome, ToolRepair } from '../retrofit/engine.js';
import type { PendingRequest } from './request.js';

/**
 * How a retrofit's result reached the client: `applied` (the client got it), `shadow` (configured to run
 * and be counted only), `unseen` (the client was shown no outputSchema for the tool — a revision without
 * structured output, or a dropped non-object root — so its result passed through untouched).
 */
export type RetrofitMode = 'applied' | 'shadow' | 'unseen';

/** One outcome as the operator console (src/console/) sees it: what was counted, and what it was counted of. */
export interface OutcomeEvent {
  readonly request: PendingRequest;
  readonly tool: string;
  readonly outcome: CallOutcome;
  readonly mode: RetrofitMode;
  /** What the retrofit took on the gateway (ms; on a worker path its queue included). */
  readonly ms: number;
  /** The upstream's result, when this thread holds it parsed (absent when a worker read the raw bytes). */
  readonly result?: JsonObject;
  /** What the client got, when this thread made it (the inline path). */
  readonly delivered?: JsonObject;
}

/**
 * Watches the pipeline for the operator console: every outcome reportOutcome counts, and every tools/list
 * answer read. Absent (the console off): nothing is measured or gathered for it.
 */
export interface PipelineObserver {
  outcome(event: OutcomeEvent): void;
  /** A tools/list result of the upstream, as it answered (before the retrofit). */
  listed(request: PendingRequest, result: JsonObject): void;
}

/** What the observer gets beside the outcome (made only when there is an observer). */
export interface Observed {
  readonly observer: PipelineObserver;
  /** performance.now() when the retrofit started. */
  readonly started: number;
  readonly result?: JsonObject;
  readonly delivered?: JsonObject;
}

/** Count and log one tools/call outcome; tell the observer, when there is one. */
export function reportOutcome(metrics: Metrics, request: PendingRequest, tool: string, outcome: CallOutcome, log: Log, mode: RetrofitMode = 'applied', observed?: Observed): void {
  if (outcome.outcome === 'untouched') return;
  if (observed) {
    const { observer, started, result, delivered } = observed;
    const event: OutcomeEvent = { request, tool, outcome, mode, ms: performance.now() - started, ...(result && { result }), ...(delivered && { delivered }) };
    watching(() => observer.outcome(event), log);
  }
  const { format, reasons } = outcome;
  // One label for one thing: native results are format "native" whether they validated or not; a text no
  // reading parsed is "none" (never an empty label).
  const label = outcome.outcome === 'native' ? 'native' : (format ?? 'none');
  metrics.retrofits.inc(request.upstream, metrics.tools.of(request.upstream, tool), outcome.outcome, label, mode);
  request.trace?.retrofit({ outcome: outcome.outcome, format: label, mode, failures: reasons?.length ?? 0, ...(request.profile && { profile: request.profile.name }) });
  const failed = outcome.outcome === 'invalid' || outcome.outcome === 'unparseable';
  const level = failed && mode !== 'unseen' ? 'warn' : 'debug';
  // A success is a debug line, off in production: its fields are not even gathered then.
  if (log.isLevelEnabled(level)) log[level]({ tool, outcome: outcome.outcome, format: label, mode, reasons, revision: request.revision, ...(request.profile && { profile: request.profile.name }) }, 'retrofit');
}

/** Tell the observer of a tools/list answer (when there is one). */
export function reportListed(observer: PipelineObserver | undefined, request: PendingRequest, result: JsonObject, log: Log): void {
  if (observer) watching(() => observer.listed(request, result), log);
}

/** The console watches; its failure must never change what a client gets: logged, and the answer goes on. */
function watching(tell: () => void, log: Log): void {
  try {
    tell();
  } catch (err) {
    log.error({ err }, 'the console failed to take an outcome; the answer is unaffected');
  }
}

/** Count one answer shaped for the request's client profile (tools/list, tools/call, tasks/result). */
export function reportProfiled(metrics: Metrics, request: PendingRequest): void {
  if (!request.profile) return;
  metrics.profiled.inc({ upstream: request.upstream, profile: request.profile.name, method: request.method });
  request.trace?.profile(request.profile.name);
}

/** New repairs one tools/list answer logs at info; past them, at debug, and one info line says how many. */
export const REPAIR_LINES = 20;

/**
 * Count every repair of a tools/list; log each new one once per upstream, tool and kind (repeats at debug). An
 * upstream that lists thousands of new broken tools on every list logs REPAIR_LINES lines of them, not thousands.
 */
export function reportRepairs(metrics: Metrics, request: PendingRequest, repairs: readonly ToolRepair[], log: Log): void {
  let told = 0;
  for (const repair of repairs) {
    metrics.repairs.inc({ upstream: request.upstream, tool: metrics.tools.of(request.upstream, repair.tool), kind: repair.kind });
    const fresh = repair.repeat !== true;
    if (fresh) told += 1;
    log[fresh && told <= REPAIR_LINES ? 'info' : 'debug']({ tool: repair.tool, repair: repair.kind, detail: repair.detail }, 'tool definition repaired');
  }
  if (told > REPAIR_LINES) log.info({ more: told - REPAIR_LINES }, 'more tool definitions repaired in this tools/list (logged at debug)');
}
