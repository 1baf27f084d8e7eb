/**
 * Entry point of an offload worker thread: runs the retrofit engine on large tools/call results (and projects
 * a tool's own structuredContent for the client, reshapes large 2026-07-28 answers for older clients, reads
 * large messages nothing rewrites: ./inspect.ts, and sorts out a shared child's long lines: ./demux.ts) so the
 * gateway's event loop stays free, and answers with the rewritten result already serialised (a string copies between threads cheaply; a large object graph does
 * not). Each tool's policy is compiled on the job that carries its config, and kept for the jobs after until
 * a job says to forget it: the pool decides what a worker keeps (./known.ts).
 */
import { parentPort } from 'node:worker_threads';
import { isJsonObject, type JsonObject } from '../../json.js';
import { responseProblem, toolResultProblem } from '../../jsonrpc/strict.js';
import { type ToolDefaults } from '../../config/types.js';
import type { ToolPolicy, UpstreamPolicy } from '../../retrofit/policy.js';
import { compileTool } from '../../retrofit/compiled.js';
import { rewriteToolCall } from '../../retrofit/engine.js';
import { stringifyKept, trailOf } from '../../json-literals.js';
import { isNonFinal } from '../../retrofit/result.js';
import { demuxLine } from './demux.js';
import { inspectMessage, resultStub } from './inspect.js';
import { createNativeMemory, decisionKey } from '../../retrofit/native-memory.js';
import type { ProfileShape } from '../../retrofit/profile.js';
import { capturedText } from '../../telemetry/content.js';
import { textLength } from './plan.js';
import { READY, type DemuxJob, type InspectJob, type NativeJob, type OffloadJob, type OffloadReply, type ReshapeJob, type TraceRequest, type Traced } from './protocol.js';
import { reshapeAnswer } from './reshape.js';
import { utf8Text } from './shared.js';

interface Cached {
  readonly policy: UpstreamPolicy;
}

const tools = new Map<number, Cached>();

function compiledPolicy(job: OffloadJob): Cached {
  for (const id of job.forget ?? []) tools.delete(id);
  const cached = tools.get(job.toolId);
  if (cached) return cached;
  if (!job.compile) throw new Error(`offload worker: tool id ${job.toolId} was never sent with its config`);
  const { config, defaults } = job.compile;
  const entry: ToolPolicy = { key: job.tool, config, compiled: compileTool(config, defaults as ToolDefaults).tool };
  // The same engine entry point as the main thread, so both paths produce the same result.
  const policy: UpstreamPolicy = { upstream: '', defaults, resolve: () => entry };
  const made = { policy };
  tools.set(job.toolId, made);
  return made;
}

/** UTF-8 bytes in an ArrayBuffer of their own, so it can be transferred (a small Buffer shares a pool). */
function encode(json: string): Uint8Array {
  const bytes = Buffer.from(json, 'utf8');
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  return new Uint8Array(bytes);
}

/** What a whole-response job names: the tool, the client's revision and profile, whether it is traced. */
interface Call {
  readonly job: number;
  readonly tool: string;
  readonly revision: string;
  readonly profile?: ProfileShape | undefined;
  readonly trace?: TraceRequest | undefined;
  readonly asIfUnconfigured?: { readonly spliceOver: number } | undefined;
}

/**
 * What a traced request's span records of `result`, retrofitted into `delivered` (see Traced); for an
 * asIfUnconfigured job (`source`), of the result itself too (`inline`: the main thread would measure it).
 */
function traced(trace: TraceRequest | undefined, result: JsonObject, delivered: JsonObject, source?: { inline: boolean }): { traced: Traced } | undefined {
  if (!trace) return undefined;
  const facts: Traced = {
    toolError: result.isError === true,
    textBytes: textLength(result, Infinity),
    resultBytes: Buffer.byteLength(JSON.stringify(delivered)),
    ...(trace.capture && { text: capturedText(delivered) }),
    ...(trace.capture && source && { sourceText: capturedText(result) }),
    ...(source?.inline && { sourceBytes: Buffer.byteLength(JSON.stringify(result)) }),
  };
  return { traced: facts };
}

/**
 * Whether the main thread, given this message parsed, retrofits its result on a worker and splices the bytes
 * back (src/pipeline/rewrite.ts offload): a final result with more text than `over`.
 */
function splicedThere(result: JsonObject, over: number): boolean {
  return !isNonFinal(result) && textLength(result, over) > over;
}

/** `message` with `result` last: the bytes the main thread makes of a parsed message and a worker's result (./splice.ts). */
function resultLast(message: JsonObject, result: JsonObject): JsonObject {
  const { result: _result, ...envelope } = message;
  return { ...envelope, result };
}

/** A whole response, parsed here (the envelope's JSON.parse is most of a large result's cost otherwise). */
function runMessage(call: Call, data: Uint8Array | string, id: string | number, policy: UpstreamPolicy): OffloadReply {
  let message: unknown;
  const text = utf8Text(data);
  try {
    message = JSON.parse(text);
  } catch {
    return { job: call.job, ok: true, mismatch: true };
  }
  // Not a response a strict client takes either (jsonrpc 1.0, result and error both…, a malformed tool result):
  // the caller parses it and decides, knowing what it answers.
  if (!isJsonObject(message) || message.method !== undefined || message.id !== id || !isJsonObject(message.result) || responseProblem(message) !== undefined || toolResultProblem(message.result) !== undefined) return { job: call.job, ok: true, mismatch: true };
  const result = message.result;
  const stub: JsonObject = { jsonrpc: '2.0', id, result: isJsonObject(result.task) ? { task: result.task } : {} };
  const out = rewriteToolCall(result, call.tool, policy, call.revision, call.profile);
  const unconfigured = call.asIfUnconfigured;
  const spliced = unconfigured !== undefined && splicedThere(result, unconfigured.spliceOver);
  const facts = traced(call.trace, result, out.result, unconfigured && { inline: !spliced });
  const miniature = unconfigured && { miniature: resultStub(result) };
  if (out.result === result) return { job: call.job, ok: true, outcome: out.outcome, stub, ...facts, ...miniature };
  const rewritten = spliced ? resultLast(message, out.result) : { ...message, result: out.result };
  // Every number literal a double cannot hold, where the rewrite left it, as the upstream wrote it.
  return { job: call.job, ok: true, bytes: encode(stringifyKept(rewritten, trailOf(text))), outcome: out.outcome, stub, ...facts, ...miniature };
}

/**
 * A tool without a configured schema: the engine with no tool entry and a NativeMemory holding what the main
 * thread's had learnt of the tool, so the projection is the one the main thread would make.
 */
function runNative(job: NativeJob): OffloadReply {
  const { data, id, tool, revision, profile, decisions, defaults, trace } = job.native;
  const native = createNativeMemory();
  for (const [era, decision] of decisions) native.decisions.set(decisionKey(tool, era), decision);
  const policy: UpstreamPolicy = { upstream: '', defaults, native, resolve: () => undefined };
  return runMessage({ job: job.job, tool, revision, profile, trace }, data, id, policy);
}

function run(job: OffloadJob): OffloadReply {
  try {
    const { policy } = compiledPolicy(job);
    // A deadline covers the retrofit, not the tool's one-time compile: say when the retrofit starts.
    if (job.timed) port.postMessage({ job: job.job, running: true } satisfies OffloadReply);
    if (job.message) return runMessage(job, job.message.data, job.message.id, policy);
    if (!job.result) throw new Error('offload job without a result or a message');
    const out = rewriteToolCall(job.result, job.tool, policy, job.revision, job.profile);
    const facts = traced(job.trace, job.result, out.result);
    if (out.result === job.result) return { job: job.job, ok: true, outcome: out.outcome, ...facts };
    // Encoded here too: turning 20 MB of JSON text into bytes is itself tens of milliseconds.
    return { job: job.job, ok: true, bytes: encode(stringifyKept(out.result, job.literals)), outcome: out.outcome, ...facts };
  } catch (err) {
    return { job: job.job, ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

/**
 * A tool's own structuredContent to project (runNative), a 2026-07-28 answer for a session revision's client
 * (./reshape.ts), a message to inspect (./inspect.ts), or a shared child's line to sort out (./demux.ts).
 */
function runBytes(job: ReshapeJob | InspectJob | DemuxJob | NativeJob): OffloadReply {
  try {
    if ('native' in job) return runNative(job);
    if ('inspect' in job) return { job: job.job, ok: true, inspected: inspectMessage(job.inspect.data) };
    if ('demux' in job) return { job: job.job, ok: true, demuxed: demuxLine(job.demux.data) };
    return { job: job.job, ok: true, reshaped: reshapeAnswer(job.reshape.data, job.reshape.clientId) };
  } catch (err) {
    return { job: job.job, ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

/** The buffer a reply hands over instead of copying. */
function transfer(reply: OffloadReply): ArrayBuffer[] {
  if (!reply.ok) return [];
  const bytes = reply.bytes ?? (reply.reshaped?.kind === 'answer' ? reply.reshaped.bytes : undefined);
  return bytes && !(bytes.buffer instanceof SharedArrayBuffer) ? [bytes.buffer] : [];
}

const worker = parentPort;
if (!worker) throw new Error('src/pipeline/offload/worker.ts runs as a worker thread only');
const port = worker;
port.on('message', (job: OffloadJob | ReshapeJob | InspectJob | DemuxJob | NativeJob) => {
  const reply = 'reshape' in job || 'inspect' in job || 'demux' in job || 'native' in job ? runBytes(job) : run(job);
  port.postMessage(reply, transfer(reply));
});
port.postMessage(READY);
