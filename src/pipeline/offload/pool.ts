/**
 * A small pool of worker threads running retrofits off the event loop (./worker.ts): large results, and
 * extractions that cannot be bounded in time on the main thread (a backtracking pattern, a YAML parse), which
 * run under a deadline; the reshape of large 2026-07-28 answers for older clients (reshape()); and the reading
 * of large messages nothing rewrites (inspect()) and of a shared child's long lines (demux()). Jobs queue
 * in order and each worker runs one at a time. Each tool's policy gets a stable numeric id (one per ToolPolicy
 * object, so per config generation); its config and defaults travel to a worker only when that worker does not
 * hold the tool, and what a worker holds is decided here, bounded, and told to it with each job (./known.ts). A worker that crashes fails its job (the caller passes the original result through) and is
 * replaced; queued jobs go to the replacement. A job past its deadline has its worker terminated (that is
 * the only way to stop a running match) and fails with DeadlineExceeded. close() terminates every worker.
 */
import type { ProfileShape } from '../../retrofit/profile.js';
import type { LiteralTrail } from '../../json-literals.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { type JsonObject } from '../../json.js';
import { TOOL_DEFAULTS } from '../../retrofit/settings.js';
import type { ToolPolicy, UpstreamPolicy } from '../../retrofit/policy.js';
import type { CallOutcome } from '../../retrofit/engine.js';
import { demuxed, type Demuxed } from './demux.js';
import { KnownTools } from './known.js';
import type { Inspected } from './inspect.js';
import { asBuffer } from './shared.js';
import { READY, type DemuxJob, type InspectJob, type NativeJob, type OffloadJob, type OffloadReply, type Reshaped, type ReshapeJob, type Traced, type TraceRequest } from './protocol.js';

/** Pool settings. */
export interface PoolOptions {
  /** Worker threads (default 1). */
  readonly size?: number;
  /** Bound on the text bytes of queued and running jobs together (default 64 MiB); over it, run() refuses. */
  readonly maxQueuedBytes?: number;
  /** The worker module (tests pass their own); default: the compiled worker.js beside this module. */
  readonly workerUrl?: URL;
  /**
   * Keep `size` workers booted (after warm() and after each one stopped), so a job never waits for a worker
   * to start — for jobs under a deadline, whose budget would otherwise go to the boot.
   */
  readonly warm?: boolean;
}

/**
 * What a finished job gives back: the rewritten result as UTF-8 JSON (absent: unchanged) and the outcome;
 * for a `message` job, the whole rewritten message, its bookkeeping stub, or `mismatch`.
 */
export interface PoolAnswer {
  readonly bytes?: Buffer;
  readonly outcome?: CallOutcome;
  readonly stub?: JsonObject;
  readonly mismatch?: true;
  /** See OffloadJob.asIfUnconfigured. */
  readonly miniature?: JsonObject;
  readonly traced?: Traced;
  readonly reshaped?: Reshaped<Buffer>;
  readonly inspected?: Inspected;
  readonly demuxed?: Demuxed<Buffer>;
}

/** The work the pool needs for one result. */
export interface PoolRequest {
  readonly entry: ToolPolicy;
  readonly policy: UpstreamPolicy;
  readonly tool: string;
  readonly revision: string;
  /** The client's profile (plain data: it crosses to the worker). */
  readonly profile?: ProfileShape;
  /** The result to retrofit, or the whole unparsed response (see OffloadJob.message). */
  readonly result?: JsonObject;
  /** See OffloadJob.literals. */
  readonly literals?: LiteralTrail;
  readonly message?: { readonly data: Uint8Array | string; readonly id: string | number };
  /** Its size estimate (text length), for the queue bound. */
  readonly bytes: number;
  /** Longest the job may run once a worker took it (ms); absent: no bound. */
  readonly deadlineMs?: number;
  /** The request is traced (see OffloadJob.trace). */
  readonly trace?: TraceRequest;
  /** See OffloadJob.asIfUnconfigured. */
  readonly asIfUnconfigured?: { readonly spliceOver: number };
}

/** The error a job fails with when it ran past its deadline and its worker was stopped. */
export class DeadlineExceeded extends Error {
  readonly deadlineMs: number;

  constructor(deadlineMs: number) {
    super(`the retrofit ran longer than ${deadlineMs} ms and was stopped`);
    this.name = 'DeadlineExceeded';
    this.deadlineMs = deadlineMs;
  }
}

export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/**
 * The worker module: beside this file once built. Run from src/ (vitest, Node 20 without type stripping),
 * a worker cannot load .ts, so the built dist/ counterpart is used.
 */
export function defaultWorkerUrl(from: string = import.meta.url): URL {
  if (from.endsWith('.ts')) return new URL(from.replace(/\/src\/pipeline\/offload\/[^/]+\.ts$/, '/dist/pipeline/offload/worker.js'));
  return new URL('./worker.js', from);
}

/**
 * A reshape (ReshapeJob) or an inspection (InspectJob): the message's bytes count against the queue bound as a
 * result's text does.
 */
type BytesRequest =
  | { readonly reshape: ReshapeJob['reshape']; readonly bytes: number }
  | { readonly inspect: InspectJob['inspect']; readonly bytes: number }
  | { readonly demux: DemuxJob['demux']; readonly bytes: number }
  | { readonly native: NativeJob['native']; readonly bytes: number };

interface Queued {
  readonly request: PoolRequest | BytesRequest;
  readonly resolve: (answer: PoolAnswer) => void;
  readonly reject: (err: Error) => void;
}

interface Slot {
  readonly worker: Worker;
  /** Tool ids whose config this worker holds. */
  readonly known: KnownTools;
  running: { readonly job: number; readonly queued: Queued; timer?: NodeJS.Timeout } | undefined;
}

export class OffloadPool {
  readonly #size: number;
  readonly #maxQueuedBytes: number;
  readonly #url: URL;
  readonly #ids = new WeakMap<ToolPolicy, number>();
  /** A collected policy's id is never used again: its workers drop its compiled tool. */
  readonly #collected = new FinalizationRegistry<number>((id) => {
    for (const slot of this.#slots) slot.known.dropped(id);
  });
  readonly #slots: Slot[] = [];
  readonly #queue: Queued[] = [];
  readonly #warm: boolean;
  #warmed = false;
  #nextId = 1;
  #nextJob = 1;
  #bytes = 0;
  #closed = false;
  /** Workers replaced after a crash (tests and logs). */
  crashes = 0;
  /** Jobs stopped at their deadline. */
  deadlines = 0;

  constructor(options: PoolOptions = {}) {
    this.#size = Math.max(1, options.size ?? 1);
    this.#maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
    this.#url = options.workerUrl ?? defaultWorkerUrl();
    this.#warm = options.warm ?? false;
  }

  /** Boot the workers now (a warm pool keeps them booted from then on). No-op when unavailable. */
  warm(): void {
    if (this.unavailable !== undefined) return;
    this.#warmed = this.#warm;
    while (this.#spawn()) {
      // spawn until size
    }
  }

  /** Why the pool cannot run jobs (its worker module is missing: run `npm run build`), else undefined. */
  get unavailable(): string | undefined {
    if (this.#closed) return 'the offload pool is closed';
    const path = fileURLToPath(this.#url);
    return existsSync(path) ? undefined : `the offload worker ${path} does not exist (run \`npm run build\`)`;
  }

  /** Workers started and not (yet) exited. */
  get workers(): number {
    return this.#slots.length;
  }

  /** Text bytes of the jobs queued or running. */
  get queuedBytes(): number {
    return this.#bytes;
  }

  /** Compiled tools the workers hold, all together (after reading the jobs posted so far). */
  get tools(): number {
    return this.#slots.reduce((sum, slot) => sum + slot.known.size, 0);
  }

  /** The tool's stable id (per ToolPolicy object). */
  idOf(entry: ToolPolicy): number {
    let id = this.#ids.get(entry);
    if (id === undefined) {
      this.#ids.set(entry, (id = this.#nextId++));
      this.#collected.register(entry, id);
    }
    return id;
  }

  /**
   * Queue a job; undefined when the queue bound would be exceeded (the caller then decides). The promise
   * rejects when the worker crashed or the pool closed.
   */
  run(request: PoolRequest): Promise<PoolAnswer> | undefined {
    return this.#enqueue(request);
  }

  #enqueue(request: PoolRequest | BytesRequest): Promise<PoolAnswer> | undefined {
    if (this.#closed) return Promise.reject(new Error('the offload pool is closed'));
    if (this.#bytes > 0 && this.#bytes + request.bytes > this.#maxQueuedBytes) return undefined;
    this.#bytes += request.bytes;
    const promise = new Promise<PoolAnswer>((resolve, reject) => this.#queue.push({ request, resolve, reject }));
    this.#dispatch();
    return promise;
  }

  /**
   * Reshape a large 2026-07-28 answer for a client of a session revision (src/protocol/modern.ts
   * sessionAnswer) on a worker; undefined when the queue bound would be exceeded, as run().
   */
  reshape(data: Uint8Array | string, clientId: string | number): Promise<Reshaped<Buffer>> | undefined {
    return this.#enqueue({ reshape: { data, clientId }, bytes: data.length })?.then((answer) => answer.reshaped ?? Promise.reject(new Error('the offload worker gave no reshaped answer')));
  }

  /**
   * Read a large message nothing will rewrite (./inspect.ts) on a worker; undefined when the queue bound would
   * be exceeded, as run().
   */
  inspect(data: Uint8Array | string): Promise<Inspected> | undefined {
    return this.#enqueue({ inspect: { data }, bytes: data.length })?.then((answer) => answer.inspected ?? Promise.reject(new Error('the offload worker gave no inspection')));
  }

  /**
   * Sort out a long line of a shared stdio child that is not an answer (./demux.ts) on a worker; undefined
   * when the queue bound would be exceeded, as run().
   */
  demux(data: Uint8Array | string): Promise<Demuxed<Buffer>> | undefined {
    return this.#enqueue({ demux: { data }, bytes: data.length })?.then((answer) => answer.demuxed ?? Promise.reject(new Error('the offload worker gave no demux')));
  }

  /**
   * Project a tool's own structuredContent in a large answer for the client (see NativeJob) on a worker;
   * undefined when the queue bound would be exceeded, as run().
   */
  native(native: NativeJob['native']): Promise<PoolAnswer> | undefined {
    return this.#enqueue({ native, bytes: native.data.length });
  }

  /** Terminate every worker; queued and running jobs reject. */
  async close(): Promise<void> {
    this.#closed = true;
    const err = new Error('the offload pool is closed');
    for (const queued of this.#queue.splice(0)) this.#settle(queued, err);
    const slots = this.#slots.splice(0);
    for (const slot of slots) {
      clearTimeout(slot.running?.timer);
      if (slot.running) this.#settle(slot.running.queued, err);
    }
    await Promise.all(slots.map((slot) => slot.worker.terminate()));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      const slot = this.#slots.find((s) => s.running === undefined) ?? this.#spawn();
      if (!slot) return;
      const queued = this.#queue.shift()!;
      this.#post(slot, queued);
    }
  }

  #spawn(): Slot | undefined {
    if (this.#slots.length >= this.#size) return undefined;
    const worker = new Worker(this.#url);
    // The pool never keeps the process alive: callers waiting for a job hold their own sockets.
    worker.unref();
    const slot: Slot = { worker, known: new KnownTools(), running: undefined };
    worker.on('message', (reply: OffloadReply | typeof READY) => {
      if (reply === READY) return;
      // A timed job's deadline counts from when its retrofit starts (not the worker's boot or the compile).
      if (reply.ok === undefined) return this.#arm(slot, reply.job);
      this.#answered(slot, reply);
    });
    worker.on('error', (err) => this.#crashed(slot, err));
    worker.on('exit', (code) => this.#crashed(slot, new Error(`the offload worker exited with code ${code}`)));
    this.#slots.push(slot);
    return slot;
  }

  /** Post the queued job to the slot's worker; false when it could not be posted (it failed alone). */
  #post(slot: Slot, queued: Queued): boolean {
    const { request } = queued;
    if ('reshape' in request) return this.#postJob(slot, queued, { job: this.#nextJob++, reshape: request.reshape });
    if ('inspect' in request) return this.#postJob(slot, queued, { job: this.#nextJob++, inspect: request.inspect });
    if ('demux' in request) return this.#postJob(slot, queued, { job: this.#nextJob++, demux: request.demux });
    if ('native' in request) return this.#postJob(slot, queued, { job: this.#nextJob++, native: request.native });
    const plan = slot.known.use(this.idOf(request.entry));
    const job: OffloadJob = {
      job: this.#nextJob++,
      toolId: plan.toolId,
      ...(plan.forget && { forget: plan.forget }),
      tool: request.tool,
      revision: request.revision,
      ...(request.profile && { profile: request.profile }),
      ...(request.result && { result: request.result }),
      ...(request.literals && { literals: request.literals }),
      ...(request.message && { message: request.message }),
      ...(plan.compile && { compile: { config: request.entry.config, defaults: request.policy.defaults ?? TOOL_DEFAULTS } }),
      ...(request.deadlineMs !== undefined && { timed: true as const }),
      ...(request.trace && { trace: request.trace }),
      ...(request.asIfUnconfigured && { asIfUnconfigured: request.asIfUnconfigured }),
    };
    if (this.#postJob(slot, queued, job)) return true;
    slot.known.undo(plan);
    return false;
  }

  #postJob(slot: Slot, queued: Queued, job: OffloadJob | ReshapeJob | InspectJob | DemuxJob | NativeJob): boolean {
    slot.running = { job: job.job, queued };
    try {
      slot.worker.postMessage(job);
      return true;
    } catch (err) {
      // Not cloneable (cannot happen for parsed JSON): fail this job only.
      clearTimeout(slot.running.timer);
      slot.running = undefined;
      this.#settle(queued, err instanceof Error ? err : new Error(String(err)));
      return false;
    }
  }

  #answered(slot: Slot, reply: Exclude<OffloadReply, { running: true }>): void {
    const running = slot.running;
    if (!running || running.job !== reply.job) return;
    clearTimeout(running.timer);
    slot.running = undefined;
    if (reply.ok) {
      const bytes = reply.bytes && asBuffer(reply.bytes);
      const { outcome, stub, mismatch, miniature, inspected, traced } = reply;
      const demux = reply.demuxed && demuxed(reply.demuxed);
      const reshaped = reply.reshaped?.kind === 'answer' ? { kind: 'answer' as const, bytes: asBuffer(reply.reshaped.bytes) } : reply.reshaped;
      this.#settle(running.queued, undefined, { ...(bytes && { bytes }), ...(outcome && { outcome }), ...(stub && { stub }), ...(mismatch && { mismatch }), ...(miniature && { miniature }), ...(traced && { traced }), ...(reshaped && { reshaped }), ...(inspected && { inspected }), ...(demux && { demuxed: demux }) });
    }
    else {
      // The job may have failed in the tool's compile: the worker then lacks it, so its next job carries the config.
      const request = running.queued.request;
      if ('entry' in request) slot.known.dropped(this.idOf(request.entry));
      this.#settle(running.queued, new Error(reply.error));
    }
    this.#dispatch();
  }

  /** Start the running job's deadline (its worker said the retrofit starts). */
  #arm(slot: Slot, job: number): void {
    const running = slot.running;
    const request = running?.queued.request;
    const deadline = request && 'deadlineMs' in request ? request.deadlineMs : undefined;
    if (!running || running.job !== job || deadline === undefined || running.timer) return;
    running.timer = setTimeout(() => this.#expired(slot, deadline), deadline);
    running.timer.unref();
  }

  /** A job ran past its deadline: stop its worker (the match cannot be interrupted otherwise). */
  #expired(slot: Slot, deadlineMs: number): void {
    this.deadlines += 1;
    this.#retire(slot, new DeadlineExceeded(deadlineMs));
  }

  /** A worker died (error, or an exit nobody asked for): fail its job, drop it, let the queue respawn one. */
  #crashed(slot: Slot, err: Error): void {
    if (this.#slots.includes(slot)) this.crashes += 1;
    this.#retire(slot, err);
  }

  #retire(slot: Slot, err: Error): void {
    const index = this.#slots.indexOf(slot);
    if (index < 0) return;
    this.#slots.splice(index, 1);
    void slot.worker.terminate();
    clearTimeout(slot.running?.timer);
    if (slot.running) this.#settle(slot.running.queued, err);
    slot.running = undefined;
    if (this.#closed) return;
    this.#dispatch();
    if (this.#warmed) this.warm();
  }

  #settle(queued: Queued, err: Error | undefined, answer?: PoolAnswer): void {
    this.#bytes -= queued.request.bytes;
    if (err || !answer) queued.reject(err ?? new Error('the offload worker gave no answer'));
    else queued.resolve(answer);
  }
}
