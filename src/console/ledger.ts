/**
 * The console's outcome ledger: per upstream and tool, the outcomes of the last hour by minute, the
 * retrofit's own time, and the last failures and successes. Fed by the pipeline's one reporting place
 * (src/pipeline/report.ts reportOutcome, through the rewriter's observer). Bounded: at most MAX_TOOLS tools
 * per gateway, each named in at most TOOL_NAME_CHARS characters (outcomes of others are counted as dropped);
 * each tool's buffers are fixed in size.
 */
import type { OutcomeEvent } from '../pipeline/report.js';
import { keepsState } from '../tool-name.js';
import { KINDS, MinuteSeries, Reservoir, Ring, type Kind } from './ring.js';
import { jsonSizeWithin, keptArguments, keptText, type KeptSample } from './samples.js';

/** Most tools tracked per gateway. */
export const MAX_TOOLS = 5_000;
/**
 * Most memory the kept samples may hold, per gateway: their texts, argument strings and successes'
 * structuredContent (UTF-16 units × 2; the structuredContent by its JSON's length). Past it a new sample keeps no
 * text (null), no structuredContent and no argument strings until older ones are pushed out.
 */
export const MAX_SAMPLE_BYTES = 64 * 1024 * 1024;

/** What a kept sample holds in memory, roughly. */
function weight(sample: KeptSample | undefined): number {
  if (!sample) return 0;
  // The argument strings are kept to scrub the text with: they weigh too.
  const args = sample.args.reduce((n, a) => n + a.length * 2, 0);
  return args + (sample.text === null ? 0 : sample.text.length * 2) + (sample.structuredSize ?? 0) * 2;
}

/** What the ledger holds of one tool. */
export class ToolLedger {
  readonly series = new MinuteSeries();
  readonly added = new Reservoir();
  readonly failures: Ring<KeptSample>;
  readonly successes: Ring<KeptSample>;

  constructor(samples: number) {
    this.failures = new Ring(samples);
    this.successes = new Ring(samples);
  }
}

/** Settings of the ledger (the config's `ui:`). */
export interface LedgerOptions {
  readonly samples: number;
  readonly maxTextBytes: number;
  readonly maxTools?: number;
  /** MAX_SAMPLE_BYTES unless given (tests). */
  readonly maxSampleBytes?: number;
  /** The clock (tests pass a fake one). */
  readonly now?: () => number;
}

const KIND_INDEX: Readonly<Record<string, number>> = { extracted: 0, native: 1, invalid: 2, unparseable: 3 };
const SHADOW = KINDS.indexOf('shadow' satisfies Kind);

function key(upstream: string, tool: string): string {
  return `${upstream}\u0000${tool}`;
}

export class Ledger {
  readonly #options: LedgerOptions;
  readonly #tools = new Map<string, ToolLedger>();
  readonly #now: () => number;
  /** Outcomes of tools beyond MAX_TOOLS. */
  #dropped = 0;
  /** What the kept samples weigh (see weight). */
  #sampleBytes = 0;
  /** Bumped on every change: the event stream ticks when it moved. */
  #seq = 0;

  constructor(options: LedgerOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  get seq(): number {
    return this.#seq;
  }

  get dropped(): number {
    return this.#dropped;
  }

  /** Book one outcome (the pipeline's observer calls it for every counted outcome). */
  record(event: OutcomeEvent): void {
    const { request, tool, outcome, mode } = event;
    const kind = mode === 'shadow' ? SHADOW : KIND_INDEX[outcome.outcome];
    if (kind === undefined) return;
    const entry = this.#entry(request.upstream, tool);
    if (!entry) return;
    const now = this.#now();
    this.#seq += 1;
    entry.series.add(kind, now);
    entry.added.add(event.ms);
    // Samples are kept only of results whose call kept its arguments (the console's policies): never unscrubbable.
    const args = request.policy?.keepsArguments === true || request.policy?.record !== undefined ? keptArguments(request.arguments) : undefined;
    if (args === undefined) return;
    const failed = outcome.outcome === 'invalid' || outcome.outcome === 'unparseable';
    const full = this.#sampleBytes >= (this.#options.maxSampleBytes ?? MAX_SAMPLE_BYTES);
    const { text, truncated } = keptText(full ? undefined : event.result, this.#options.maxTextBytes);
    const base = { at: now, outcome: outcome.outcome, format: outcome.format ?? null, mode, revision: request.revision, text, truncated, args: full ? [] : args };
    let sample: KeptSample;
    let out: KeptSample | undefined;
    if (failed) out = entry.failures.push((sample = { ...base, reasons: outcome.reasons ?? [] }));
    else {
      // Kept as the text is, within maxTextBytes, and weighed for its own size: a native result's text may be a
      // word beside a large structuredContent.
      const structured = truncated || full ? undefined : event.delivered?.structuredContent;
      const structuredSize = structured === undefined ? undefined : jsonSizeWithin(structured, this.#options.maxTextBytes);
      out = entry.successes.push((sample = structured === undefined || structuredSize === undefined ? base : { ...base, structured, structuredSize }));
    }
    this.#sampleBytes += weight(sample) - weight(out);
  }

  #entry(upstream: string, tool: string): ToolLedger | undefined {
    const k = key(upstream, tool);
    let entry = this.#tools.get(k);
    if (entry) return entry;
    if (!keepsState(tool) || this.#tools.size >= (this.#options.maxTools ?? MAX_TOOLS)) {
      this.#dropped += 1;
      return undefined;
    }
    entry = new ToolLedger(this.#options.samples);
    this.#tools.set(k, entry);
    return entry;
  }

  /** The tool's ledger, when it had an outcome. */
  get(upstream: string, tool: string): ToolLedger | undefined {
    return this.#tools.get(key(upstream, tool));
  }

  /** Names of the tools of `upstream` with outcomes. */
  toolsOf(upstream: string): string[] {
    const prefix = `${upstream}\u0000`;
    const out: string[] = [];
    for (const k of this.#tools.keys()) if (k.startsWith(prefix)) out.push(k.slice(prefix.length));
    return out;
  }

  /** The clock's now. */
  now(): number {
    return this.#now();
  }
}
