/**
 * The recorder: keeps a bounded sample of real tools/call results per tool (`record:` in the config) for
 * `mcp-retrofit infer`. It must never block or slow a call, so `offer` is synchronous and O(1) when the
 * caller passes the result's size (or its raw bytes): a map lookup, two bounds and a push. Everything else
 * (parsing raw bytes, scrubbing secrets and argument values, serialising, writing, pruning) happens later
 * on a drain loop, one sample at a time, with fs/promises. The loop runs in batches, at most one every
 * `drainEveryMs` (1 s): a file costs far more than a call (about half a millisecond of CPU to create on a
 * small VM), and within a batch only each tool's newest maxPerTool samples are written, so a busy tool
 * costs at most maxPerTool files a second whatever its traffic. `flush` and `close` drain at once.
 *
 * What is dropped and counted (`mcp_retrofit_record_drops_total{upstream,reason}`): results over
 * `record.maxBytes` (`too_large`: skipped, never truncated), results arriving while the queue is full
 * (`queue_full`), samples whose write failed (`write_failed`, logged at most once a minute per upstream), and
 * samples still queued when maxPerTool newer ones of the same tool are queued behind them (`superseded`: their
 * file would be pruned as soon as those are written, so under load the drain skips the work instead), and
 * samples of a new tool when its upstream already has MAX_RECORDED_TOOLS tool directories (`too_many_tools`), and
 * samples whose call has more argument strings than scrubbing searches for, or nests them deeper
 * (`too_many_arguments`: a value not searched for would be kept).
 * Error results (`isError: true`) and non-final ones (`input_required`, task creation) are not samples and
 * are ignored without counting. Pure Node: no Fastify, no sockets.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import type { GatewayConfig, RecordConfig } from '../config/types.js';
import type { Logger } from '../log.js';
import type { Metrics } from '../metrics.js';
import { recordingFileName, type Recording } from './files.js';
import { isNonFinal } from '../retrofit/result.js';
import { parseJson } from '../retrofit/safe-json.js';
import { BoundedQueue } from './queue.js';
import { argumentNames, recordSecrets, scrubResult } from './scrub.js';
import { writeRecording } from './write.js';

/** One tools/call result offered for recording. */
export interface RecordSample {
  readonly upstream: string;
  readonly tool: string;
  /**
   * The upstream's answer as received, before any retrofit: the parsed CallToolResult, or the raw bytes
   * (Buffer or string) of its JSON-RPC response or of the bare result, e.g. what a transport is about to
   * forward unparsed. It is read later, on the drain loop: do not mutate it after offering (the engine
   * never mutates results; it returns new objects).
   */
  readonly result: JsonObject | Buffer | string;
  /** The size of the result in bytes when known (the message's length will do); raw bytes measure themselves. */
  readonly bytes?: number;
  /** The request's `params.arguments`: their string values are scrubbed from the recording, their names kept. */
  readonly arguments?: Json;
  /** The revision governing the request (PendingRequest.revision). */
  readonly revision?: string;
}

/** What the pipeline holds: one per gateway, fed from the point where upstream answers are matched to requests. */
export interface Recorder {
  /**
   * Queue a result for recording; never throws, never waits. O(1) for raw bytes and for a parsed result
   * with `bytes`; a parsed result without `bytes` is serialised once, here, to measure it.
   */
  offer(sample: RecordSample): void;
  /** Take new settings (a reloaded config): `upstreams[*].record` and `secrets`. Queued samples keep theirs. */
  configure(config: RecorderConfig): void;
  /** Resolves when every sample queued so far is written (or dropped). */
  flush(): Promise<void>;
  /** Stop accepting samples, then flush. */
  close(): Promise<void>;
}

/** What the recorder reads from the config. */
export type RecorderConfig = Pick<GatewayConfig, 'upstreams' | 'secrets' | 'auth'>;

/** Bounds of the queue between `offer` and the writer, and the clock. */
export interface RecorderOptions {
  /** Samples waiting to be written (default 256). */
  readonly maxQueueItems?: number;
  /** Bytes of samples waiting to be written (default 8 MiB). */
  readonly maxQueueBytes?: number;
  /** Milliseconds since the epoch (default Date.now); file names and `recordedAt` come from it. */
  readonly now?: () => number;
  /** Least time between two drains of the queue (ms, default 1000); flush() and close() do not wait for it. */
  readonly drainEveryMs?: number;
}

export const DEFAULT_QUEUE_ITEMS = 256;
export const DEFAULT_QUEUE_BYTES = 8 * 1024 * 1024;
export const DEFAULT_DRAIN_EVERY_MS = 1000;
const WARN_EVERY_MS = 60_000;

interface Queued {
  readonly sample: RecordSample;
  readonly bytes: number;
  readonly settings: RecordConfig;
  readonly secrets: readonly string[];
  readonly at: number;
  readonly seq: number;
}

type Counters = Pick<Metrics, 'recorded' | 'recordDrops'>;

/** A final, non-error CallToolResult: what infer can learn from. */
function isSample(result: JsonObject): boolean {
  return !isNonFinal(result);
}

/**
 * The CallToolResult in a parsed result or in raw bytes (a whole JSON-RPC response or the bare result),
 * parsed with the gateway's prototype-safe parser; undefined for an error response or junk.
 */
function resultOf(value: JsonObject | Buffer | string): JsonObject | undefined {
  if (typeof value !== 'string' && !Buffer.isBuffer(value)) return value;
  const parsed = parseJson(typeof value === 'string' ? value : value.toString('utf8'));
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const message = parsed.value;
  if (message.jsonrpc === '2.0') return isJsonObject(message.result) ? message.result : undefined;
  return message;
}

/**
 * A recorder for the upstreams whose config sets `record`. `metrics` are the gateway's (the two record
 * counters), `log` its logger (write failures, rate-limited).
 */
export function createRecorder(config: RecorderConfig, metrics: Counters, log: Logger, options: RecorderOptions = {}): Recorder {
  const queue = new BoundedQueue<Queued>({ maxItems: options.maxQueueItems ?? DEFAULT_QUEUE_ITEMS, maxBytes: options.maxQueueBytes ?? DEFAULT_QUEUE_BYTES });
  const now = options.now ?? Date.now;
  const made = new Set<string>();
  const lastWarn = new Map<string, number>();
  let settings = new Map<string, RecordConfig>();
  /** Each recording upstream's secrets (src/record/scrub.ts recordSecrets). */
  let secrets = new Map<string, readonly string[]>();
  let seq = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let active = false;
  const drainEveryMs = options.drainEveryMs ?? DEFAULT_DRAIN_EVERY_MS;
  const idle: (() => void)[] = [];

  function configure(next: RecorderConfig): void {
    settings = new Map(Object.values(next.upstreams).flatMap((u) => (u.record ? [[u.name, u.record] as const] : [])));
    secrets = new Map(Object.values(next.upstreams).flatMap((u) => (u.record ? [[u.name, recordSecrets(u, next)] as const] : [])));
  }

  function drop(upstream: string, reason: 'queue_full' | 'too_large' | 'write_failed' | 'superseded' | 'too_many_tools' | 'too_many_arguments'): void {
    metrics.recordDrops.inc({ upstream, reason });
  }

  // Samples waiting per upstream and tool (entries removed at zero, so it holds at most the queue's length).
  const waiting = new Map<string, number>();
  const keyOf = (sample: RecordSample): string => `${sample.upstream}\u0000${sample.tool}`;
  /** Takes `item` off the count; true when maxPerTool newer samples of its tool wait behind it. */
  function superseded(item: Queued): boolean {
    const key = keyOf(item.sample);
    const behind = (waiting.get(key) ?? 1) - 1;
    if (behind === 0) waiting.delete(key);
    else waiting.set(key, behind);
    return behind >= item.settings.maxPerTool;
  }

  async function write(item: Queued): Promise<void> {
    const { sample } = item;
    const result = resultOf(sample.result);
    if (result === undefined || !isSample(result)) return;
    const scrubbed = scrubResult(result, item.secrets, sample.arguments);
    if (scrubbed === undefined) return drop(sample.upstream, 'too_many_arguments');
    if (Buffer.byteLength(JSON.stringify(scrubbed)) > item.settings.maxBytes) return drop(sample.upstream, 'too_large');
    const names = argumentNames(sample.arguments);
    const recording: Recording = {
      upstream: sample.upstream,
      tool: sample.tool,
      recordedAt: new Date(item.at).toISOString(),
      ...(sample.revision !== undefined && { protocolRevision: sample.revision }),
      ...(names.length > 0 && { argumentNames: names }),
      result: scrubbed,
    };
    const outcome = await writeRecording(item.settings.dir, recording, recordingFileName(item.at, item.seq), item.settings.maxPerTool, made);
    if (outcome === 'too_many_tools') return drop(sample.upstream, 'too_many_tools');
    metrics.recorded.inc({ upstream: sample.upstream });
  }

  function failed(item: Queued, err: unknown): void {
    drop(item.sample.upstream, 'write_failed');
    const last = lastWarn.get(item.sample.upstream);
    const t = now();
    if (last !== undefined && t - last < WARN_EVERY_MS) return;
    lastWarn.set(item.sample.upstream, t);
    log.warn({ err, upstream: item.sample.upstream, tool: item.sample.tool, dir: item.settings.dir }, 'record: cannot write a recording (further failures of this upstream are counted, logged at most once a minute)');
  }

  /** One batch: the samples waiting when it starts (later ones supersede them, and wait for the next batch). */
  async function drain(): Promise<void> {
    for (let n = queue.length; n > 0; n--) {
      const item = queue.shift();
      if (item === undefined) break;
      try {
        if (superseded(item)) drop(item.sample.upstream, 'superseded');
        else await write(item);
      } catch (err) {
        failed(item, err);
      } finally {
        queue.done(item.bytes);
      }
    }
    active = false;
    // Someone waits for everything queued so far: go on at once; else the next batch in drainEveryMs.
    if (queue.length > 0) return idle.length > 0 ? start() : kick();
    for (const resolve of idle.splice(0)) resolve();
  }

  function start(): void {
    clearTimeout(timer);
    timer = undefined;
    if (active) return;
    active = true;
    void drain();
  }

  function kick(): void {
    if (active || timer !== undefined) return;
    // Never now: the call that offered the sample finishes first. Unref'd: a pending batch keeps no process alive.
    timer = setTimeout(start, drainEveryMs);
    timer.unref();
  }

  function measure(sample: RecordSample): number {
    const { result } = sample;
    if (typeof result === 'string' || Buffer.isBuffer(result)) return result.length;
    // The slow path, documented on offer: the caller did not say how big the parsed result is.
    return sample.bytes ?? Buffer.byteLength(JSON.stringify(result));
  }

  function flush(): Promise<void> {
    if (!active && queue.length === 0) return Promise.resolve();
    const done = new Promise<void>((resolve) => idle.push(resolve));
    if (!active) start();
    return done;
  }

  configure(config);
  return {
    offer(sample) {
      if (closed) return;
      const own = settings.get(sample.upstream);
      if (own === undefined) return;
      try {
        const { result } = sample;
        if (typeof result === 'object' && !Buffer.isBuffer(result) && !isSample(result)) return;
        const bytes = measure(sample);
        if (bytes > own.maxBytes) return drop(sample.upstream, 'too_large');
        if (!queue.push({ sample, bytes, settings: own, secrets: secrets.get(sample.upstream) ?? [], at: now(), seq: ++seq }, bytes)) return drop(sample.upstream, 'queue_full');
        waiting.set(keyOf(sample), (waiting.get(keyOf(sample)) ?? 0) + 1);
        kick();
      } catch {
        // A value JSON cannot measure (it did not come from JSON): not a sample worth failing a call for.
        drop(sample.upstream, 'write_failed');
      }
    },
    configure,
    flush,
    async close() {
      closed = true;
      await flush();
    },
  };
}
