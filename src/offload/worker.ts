/**
 * Entry point of an offload worker thread: runs the retrofit engine on large tools/call results so the
 * gateway's event loop stays free, and answers with the rewritten result already serialised (a string copies
 * between threads cheaply; a large object graph does not). Each tool's policy is compiled once, on the first
 * job that names its id, and kept (bounded) for the jobs after.
 */
import { parentPort } from 'node:worker_threads';
import type { ToolDefaults } from '../config/types.js';
import type { ToolPolicy, UpstreamPolicy } from '../policy/types.js';
import { compileTool } from '../retrofit/compiled.js';
import { rewriteToolCall } from '../retrofit/engine.js';
import { READY, type OffloadJob, type OffloadReply } from './protocol.js';

/** Compiled tools kept at most; a reload makes new ids, so old ones age out in insertion order. */
const MAX_TOOLS = 1024;

interface Cached {
  readonly policy: UpstreamPolicy;
}

const tools = new Map<number, Cached>();

function compiledPolicy(job: OffloadJob): Cached {
  const cached = tools.get(job.toolId);
  if (cached) return cached;
  if (!job.compile) throw new Error(`offload worker: tool id ${job.toolId} was never sent with its config`);
  const { config, defaults } = job.compile;
  const entry: ToolPolicy = { key: job.tool, config, compiled: compileTool(config, defaults as ToolDefaults).tool };
  // The same engine entry point as the main thread, so both paths produce the same result.
  const policy: UpstreamPolicy = { upstream: '', defaults, resolve: () => entry };
  const made = { policy };
  if (tools.size >= MAX_TOOLS) tools.delete(tools.keys().next().value as number);
  tools.set(job.toolId, made);
  return made;
}

function run(job: OffloadJob): OffloadReply {
  try {
    const { policy } = compiledPolicy(job);
    const out = rewriteToolCall(job.result, job.tool, policy, job.revision);
    if (out.result === job.result) return { job: job.job, ok: true, outcome: out.outcome };
    return { job: job.job, ok: true, json: JSON.stringify(out.result), outcome: out.outcome };
  } catch (err) {
    return { job: job.job, ok: false, error: err instanceof Error ? `${err.name}: ${err.message}` : String(err) };
  }
}

const port = parentPort;
if (!port) throw new Error('src/offload/worker.ts runs as a worker thread only');
port.on('message', (job: OffloadJob) => port.postMessage(run(job)));
port.postMessage(READY);
