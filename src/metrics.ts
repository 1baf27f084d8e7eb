/**
 * Prometheus metrics (prom-client). One registry per gateway instance so tests can run several apps in
 * one process. Names follow Prometheus conventions: `mcp_retrofit_` prefix, `_total` counters, `_seconds`.
 */
import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';
import { keepsState } from './tool-name.js';

/** Most label tuples a Tally keeps; past it, counts go straight to prom-client. */
const TALLY_MAX = 4096;

/** Distinct tool names one upstream may give a `tool` label; the rest count as `other`. */
export const TOOL_LABELS_MAX = 1000;

/**
 * The `tool` label of an upstream's metrics. Tool names are the upstream's choice: an upstream that lists a new
 * set of names on every tools/list would otherwise add series (and memory) without end. The first
 * TOOL_LABELS_MAX names an upstream is counted under keep their own label, in the order first counted; names
 * past that, or longer than TOOL_NAME_CHARS (src/tool-name.ts), are `other`. A config reload keeps what was seen.
 */
export class ToolLabels {
  readonly #seen = new Map<string, Set<string>>();

  /** The label value for `tool` of `upstream`. */
  of(upstream: string, tool: string): string {
    let names = this.#seen.get(upstream);
    if (names?.has(tool)) return tool;
    if (!keepsState(tool)) return 'other';
    if (!names) this.#seen.set(upstream, (names = new Set()));
    if (names.size >= TOOL_LABELS_MAX) return 'other';
    names.add(tool);
    return tool;
  }
}

interface TallySlot {
  readonly labels: Record<string, string | number>;
  n: number;
}

/** One level of a Tally: label value → the next level, or the slot at the last label. */
type TallyLevel = Map<string | number, TallyLevel | TallySlot>;

/**
 * A counter counted on a hot path: the request count (twice per proxied exchange), the retrofit outcomes (once
 * per retrofitted result). prom-client hashes the labels object on every `inc` (sorting names, building a key
 * string, validating each name); this keeps a count per label tuple in nested Maps, one level per label (no
 * string built, no allocation once seen), and hands the counts to the counter when the registry collects it
 * (a scrape, `get()`), so what prom-client reports is always whole.
 */
export class Tally<L extends string> {
  readonly #counter: Counter<L>;
  readonly #names: readonly L[];
  readonly #root: TallyLevel = new Map();
  #size = 0;

  /** Its counter, registered in `registers`; the label names are given once, for both. */
  constructor(options: { name: string; help: string; labelNames: readonly L[]; registers: Registry[] }) {
    this.#names = options.labelNames;
    this.#counter = new Counter({ ...options, collect: (): void => this.flush() });
  }

  /** Count one for the label values, in the order of `names`. */
  inc(...values: (string | number)[]): void {
    const last = this.#names.length - 1;
    let level = this.#root;
    for (let i = 0; i < last; i++) {
      const key = values[i]!;
      let next = level.get(key) as TallyLevel | undefined;
      if (!next) level.set(key, (next = new Map()));
      level = next;
    }
    const slot = level.get(values[last]!) as TallySlot | undefined;
    if (slot) {
      slot.n += 1;
      return;
    }
    const labels: Record<string, string | number> = {};
    this.#names.forEach((name, i) => (labels[name] = values[i]!));
    if (this.#size >= TALLY_MAX) {
      this.#counter.inc(labels as Record<L, string | number>);
      return;
    }
    this.#size += 1;
    level.set(values[last]!, { labels, n: 1 });
  }

  /** The counter's values, the counts so far included (tests; /metrics reads the registry). */
  get(): ReturnType<Counter<L>['get']> {
    return this.#counter.get();
  }

  /** Hand the counts so far to the counter (prom-client's `collect`, before every read). */
  flush(): void {
    this.#flush(this.#root, 0);
  }

  #flush(level: TallyLevel, depth: number): void {
    const last = depth === this.#names.length - 1;
    for (const entry of level.values()) {
      if (!last) {
        this.#flush(entry as TallyLevel, depth + 1);
        continue;
      }
      const slot = entry as TallySlot;
      if (slot.n === 0) continue;
      this.#counter.inc(slot.labels as Record<L, string | number>, slot.n);
      slot.n = 0;
    }
  }
}

/** Buckets of the upstream latency histogram (seconds). */
export const LATENCY_BUCKETS: readonly number[] = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

interface HistogramSlot {
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket (not cumulative); the last one is +Inf only. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/** One sample of a histogram as the registry reads it. */
interface HistogramSample {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly value: number;
  readonly metricName: string;
}

/**
 * A histogram with two labels on the hot path (every proxied exchange observes one). prom-client's Histogram
 * validates and hashes the labels object on every `observe` (a sorted key string each time); this keeps the
 * buckets per label pair in nested Maps and gives the registry prom-client's own histogram format when it
 * reads (`get()`: the cumulative `_bucket` series with `le` first, `_sum`, `_count`), so /metrics reads the
 * same as it did (test/unit/metrics-histogram.test.ts compares the two).
 */
export class TwoLabelHistogram<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #names: readonly [L, L];
  readonly #bounds: readonly number[];
  readonly #slots = new Map<string, Map<string, HistogramSlot>>();
  /** Every slot, in the order of its first observation (the order prom-client reports them in). */
  #order: HistogramSlot[] = [];

  constructor(options: { name: string; help: string; labelNames: readonly [L, L]; buckets: readonly number[]; registry: Registry }) {
    this.name = options.name;
    this.help = options.help;
    this.#names = options.labelNames;
    this.#bounds = options.buckets;
    // prom-client reads any object with its metrics' name, help, type and get(); its types name only its own.
    options.registry.registerMetric(this as unknown as Metric);
  }

  /** Observe `value` for the label values (in the order of `labelNames`). Past TALLY_MAX pairs, new ones are dropped. */
  observe(a: string, b: string, value: number): void {
    let byA = this.#slots.get(a);
    if (!byA) this.#slots.set(a, (byA = new Map()));
    let slot = byA.get(b);
    if (!slot) {
      if (this.#order.length >= TALLY_MAX) return;
      slot = { labels: { [this.#names[0]]: a, [this.#names[1]]: b }, counts: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 };
      byA.set(b, slot);
      this.#order.push(slot);
    }
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    slot.counts[i]! += 1;
    slot.sum += value;
    slot.count += 1;
  }

  /** What the registry reads: prom-client's `get()` shape of a histogram. */
  get(): Promise<{ name: string; help: string; type: 'histogram'; values: HistogramSample[]; aggregator: 'sum' }> {
    const values: HistogramSample[] = [];
    for (const slot of this.#order) {
      let acc = 0;
      for (let i = 0; i < this.#bounds.length; i++) {
        acc += slot.counts[i]!;
        values.push({ labels: { le: this.#bounds[i]!, ...slot.labels }, value: acc, metricName: `${this.name}_bucket` });
      }
      values.push({ labels: { le: '+Inf', ...slot.labels }, value: slot.count, metricName: `${this.name}_bucket` });
      values.push({ labels: { ...slot.labels }, value: slot.sum, metricName: `${this.name}_sum` });
      values.push({ labels: { ...slot.labels }, value: slot.count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator });
  }

  /** Forget every observation (prom-client's resetMetrics). */
  reset(): void {
    this.#slots.clear();
    this.#order = [];
  }
}

export interface Metrics {
  readonly registry: Registry;
  /**
   * Client requests by upstream, method and HTTP status: `inc(upstream, method, status)`. The method is an MCP
   * method (others count as `other`: src/protocol/methods.ts), `batch`, the message kind, or the HTTP verb.
   */
  readonly requests: Tally<'upstream' | 'method' | 'status'>;
  /** Time to the upstream's response headers, by upstream and method: `observe(upstream, method, seconds)`. */
  readonly latency: TwoLabelHistogram<'upstream' | 'method'>;
  /** Upstream failures by kind: unreachable, timeout, protocol, too_large, exited, spawn. */
  readonly upstreamErrors: Counter<'upstream' | 'kind'>;
  /**
   * Retrofit outcomes: native, extracted, invalid, unparseable; `format` the reading (native for
   * upstream structuredContent); `mode` how the client got it (applied, shadow, unseen: see pipeline/report.ts):
   * `inc(upstream, tool, outcome, format, mode)`.
   */
  readonly retrofits: Tally<'upstream' | 'tool' | 'outcome' | 'format' | 'mode'>;
  /** Tool definition repairs in tools/list: input_type_added, input_replaced, output_removed. */
  readonly repairs: Counter<'upstream' | 'tool' | 'kind'>;
  /** The `tool` label of `retrofits` and `repairs`: bounded per upstream (ToolLabels). */
  readonly tools: ToolLabels;
  /**
   * Protocol revisions governing requests, by source (meta, header, session, default): `inc(upstream,
   * revision, source)`; a revision the gateway does not know counts as `other`.
   */
  readonly revisions: Tally<'upstream' | 'revision' | 'source'>;
  /** Sessions the gateway currently knows about (stdio: gateway-owned; HTTP: seen session ids). */
  readonly sessions: Gauge<'upstream'>;
  /** Live stdio child processes. */
  readonly children: Gauge<'upstream'>;
  /** Sessions bridged (src/protocol/negotiate.ts): the client's revision `from` over the upstream's `to`. */
  readonly bridgedSessions: Counter<'upstream' | 'from' | 'to'>;
  /** Share-mode sessions ended because their client stopped reading (src/upstream/shared-stdio.ts). */
  readonly slowClients: Counter<'upstream'>;
  /** Config reloads by result (ok, failed). */
  readonly reloads: Counter<'result'>;
  /** Large retrofits by where they ran: worker, failed (worker crash or engine error), main_thread (no worker). */
  readonly offloads: Counter<'result'>;
  /** tools/call results written to `record.dir` (src/record/), by upstream. */
  readonly recorded: Counter<'upstream'>;
  /** Results the recorder did not write, by reason: queue_full, too_large (over `record.maxBytes`), write_failed,
   *  superseded (maxPerTool newer results of the same tool were queued behind it), too_many_tools (a new tool of
   *  an upstream that already has MAX_RECORDED_TOOLS directories), too_many_arguments (more argument strings than
   *  scrubbing searches for). */
  readonly recordDrops: Counter<'upstream' | 'reason'>;
  /** tools/list and tools/call answers shaped for a client profile (`clients:`), by upstream, profile and method. */
  readonly profiled: Counter<'upstream' | 'profile' | 'method'>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'mcp_retrofit_' });
  const registers = [registry];
  const requestTally = new Tally({
    name: 'mcp_retrofit_requests_total',
    help: 'Client requests by upstream, method and HTTP status.',
    labelNames: ['upstream', 'method', 'status'],
    registers,
  });
  const revisionTally = new Tally({
    name: 'mcp_retrofit_protocol_revisions_total',
    help: 'Protocol revision governing each request, by how it was detected.',
    labelNames: ['upstream', 'revision', 'source'],
    registers,
  });
  const retrofitTally = new Tally({
    name: 'mcp_retrofit_retrofit_outcomes_total',
    help: 'tools/call retrofit outcomes by upstream, tool, outcome, extraction format and mode.',
    labelNames: ['upstream', 'tool', 'outcome', 'format', 'mode'],
    registers,
  });
  return {
    registry,
    requests: requestTally,
    latency: new TwoLabelHistogram({
      name: 'mcp_retrofit_upstream_latency_seconds',
      help: 'Time from forwarding a request to the upstream answering (headers or first message).',
      labelNames: ['upstream', 'method'],
      buckets: LATENCY_BUCKETS,
      registry,
    }),
    upstreamErrors: new Counter({
      name: 'mcp_retrofit_upstream_errors_total',
      help: 'Upstream failures by kind.',
      labelNames: ['upstream', 'kind'],
      registers,
    }),
    retrofits: retrofitTally,
    repairs: new Counter({
      name: 'mcp_retrofit_tool_repairs_total',
      help: 'Tool definitions repaired in tools/list, by kind.',
      labelNames: ['upstream', 'tool', 'kind'],
      registers,
    }),
    tools: new ToolLabels(),
    revisions: revisionTally,
    sessions: new Gauge({
      name: 'mcp_retrofit_active_sessions',
      help: 'Sessions currently open through the gateway.',
      labelNames: ['upstream'],
      registers,
    }),
    children: new Gauge({
      name: 'mcp_retrofit_stdio_children',
      help: 'Live stdio child processes.',
      labelNames: ['upstream'],
      registers,
    }),
    bridgedSessions: new Counter({
      name: 'mcp_retrofit_bridged_sessions_total',
      help: 'Sessions whose client was answered its own revision over an upstream of an older era, by client (from) and upstream (to) revision.',
      labelNames: ['upstream', 'from', 'to'],
      registers,
    }),
    slowClients: new Counter({
      name: 'mcp_retrofit_slow_clients_total',
      help: 'Share-mode sessions ended because their client read nothing while more than limits.maxResultBytes waited for it.',
      labelNames: ['upstream'],
      registers,
    }),
    reloads: new Counter({
      name: 'mcp_retrofit_config_reloads_total',
      help: 'Config reloads by result.',
      labelNames: ['result'],
      registers,
    }),
    offloads: new Counter({
      name: 'mcp_retrofit_offloaded_retrofits_total',
      help: 'Large tools/call retrofits by where they ran: worker, failed, main_thread.',
      labelNames: ['result'],
      registers,
    }),
    recorded: new Counter({
      name: 'mcp_retrofit_recorded_results_total',
      help: 'tools/call results recorded for `mcp-retrofit infer`, by upstream.',
      labelNames: ['upstream'],
      registers,
    }),
    recordDrops: new Counter({
      name: 'mcp_retrofit_record_drops_total',
      help: 'tools/call results the recorder did not write, by upstream and reason (queue_full, too_large, write_failed, superseded, too_many_tools, too_many_arguments).',
      labelNames: ['upstream', 'reason'],
      registers,
    }),
    profiled: new Counter({
      name: 'mcp_retrofit_client_profile_answers_total',
      help: 'tools/list and tools/call answers served through a client profile (`clients:`), by upstream, profile and method.',
      labelNames: ['upstream', 'profile', 'method'],
      registers,
    }),
  };
}
