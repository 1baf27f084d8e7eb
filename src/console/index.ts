/**
 * The operator console's data (docs/console.md), pure of HTTP: made once at start when `ui.enabled`, and
 * then the one owner of everything the console keeps — the outcome ledger, the tools each upstream listed,
 * the open sessions, the revision each upstream last answered, the Learn cache. The pipeline feeds it through
 * `observer`, the session owners through `sessions`; the routes (src/http/console/) read its views.
 */
import { randomBytes } from 'node:crypto';
import type { Generations } from '../config/generations.js';
import type { UiSettings } from '../config/types.js';
import type { InferredEntry } from '../infer/index.js';
import type { Metrics } from '../metrics.js';
import type { PipelineObserver } from '../pipeline/report.js';
import { applyEntries, type ApplyOutcome } from './apply.js';
import { Catalog } from './catalog.js';
import { Ledger } from './ledger.js';
import { Learner } from './learner.js';
import type { LearnView } from './learn.js';
import { SessionBook } from './sessions.js';
import { toolDetail, toolsView } from './tools.js';
import { cachedReadiness, upstreamsView, type Readiness } from './upstreams.js';
import type { Overview, SessionsReply, ToolDetail, ToolsReply, Upstream } from './wire.js';

export type { Readiness } from './upstreams.js';

/** What the console is made with. */
export interface ConsoleOptions {
  readonly ui: UiSettings;
  readonly generations: Generations;
  readonly metrics: Metrics;
  /** The gateway's secret scrubber (the config's secrets). */
  readonly scrub: (text: string) => string;
  readonly version: string;
  /** The clock (tests pass a fake one). */
  readonly now?: () => number;
}

export class Console {
  readonly ui: UiSettings;
  /** The token a page sends back as `x-retrofit-csrf` on writes: one per process, random. */
  readonly csrf = randomBytes(24).toString('base64url');
  readonly startedAt: number;
  readonly ledger: Ledger;
  readonly catalog = new Catalog();
  readonly sessions: SessionBook;
  /** Fed by the rewriter (src/pipeline/rewrite.ts RewriterOptions.observer). */
  readonly observer: PipelineObserver;
  readonly #options: ConsoleOptions;
  /** The revision each upstream last answered initialize with (configured upstreams only). */
  readonly #revisions = new Map<string, string>();
  #revisionSeq = 0;
  readonly #learner: Learner;
  /** Each upstream's readiness, set once its routes exist. */
  #readiness: ReadonlyMap<string, Readiness> = new Map();

  constructor(options: ConsoleOptions) {
    this.#options = options;
    this.ui = options.ui;
    const now = options.now ?? Date.now;
    this.startedAt = now();
    this.ledger = new Ledger({ samples: options.ui.samples, maxTextBytes: options.ui.maxTextBytes, now });
    this.sessions = new SessionBook({ now });
    this.#learner = new Learner(options.generations, now);
    const { ledger, catalog } = this;
    this.observer = {
      outcome: (event) => ledger.record(event),
      listed: (request, result) => catalog.listed(request.upstream, result),
    };
  }

  /** A number that moves whenever anything the pages show changed (the event stream ticks on it). */
  get seq(): number {
    return this.ledger.seq + this.catalog.seq + this.sessions.seq + this.#revisionSeq;
  }

  /** The upstreams' readiness checks (/readyz's), once their routes are registered. */
  setReadiness(readiness: ReadonlyMap<string, Readiness>): void {
    const now = this.#options.now ?? Date.now;
    this.#readiness = new Map([...readiness].map(([name, ready]) => [name, cachedReadiness(ready, now)]));
  }

  /** An upstream answered initialize with `revision`. */
  answered(upstream: string, revision: string): void {
    if (!Object.hasOwn(this.#options.generations.current.config.upstreams, upstream)) return;
    if (this.#revisions.get(upstream) === revision) return;
    this.#revisions.set(upstream, revision);
    this.#revisionSeq += 1;
  }

  #sources(): Parameters<typeof upstreamsView>[0] {
    return { metrics: this.#options.metrics, ledger: this.ledger, catalog: this.catalog, scrub: this.#options.scrub, readiness: this.#readiness, revisions: this.#revisions };
  }

  /** Replace every configured secret in `text`. */
  scrub(text: string): string {
    return this.#options.scrub(text);
  }

  /** True when `upstream` is served. */
  has(upstream: string): boolean {
    return Object.hasOwn(this.#options.generations.current.config.upstreams, upstream);
  }

  overview(): Overview {
    const upstreams = Object.values(this.#options.generations.current.config.upstreams);
    return { version: this.#options.version, startedAt: this.startedAt, write: this.ui.write, csrf: this.csrf, recordingUpstreams: upstreams.filter((u) => u.record !== undefined).map((u) => u.name) };
  }

  upstreams(): Promise<Upstream[]> {
    return upstreamsView(this.#sources(), this.#options.generations.current);
  }

  tools(upstream: string): Promise<ToolsReply> {
    return toolsView(this.#sources(), this.#options.generations.current.policies.get(upstream), upstream);
  }

  tool(upstream: string, tool: string): Promise<ToolDetail | undefined> {
    return toolDetail(this.#sources(), this.#options.generations.current.policies.get(upstream), upstream, tool);
  }

  sessionsView(): SessionsReply {
    return this.sessions.view();
  }

  /** The Learn page of a recording upstream; undefined when it does not record. */
  learn(upstream: string): Promise<LearnView> | undefined {
    return this.#learner.view(upstream);
  }

  /**
   * Write the proposals for `tools` of `upstream` into the config file (see ./apply.ts). Undefined when the
   * upstream does not record; a tool without a proposal is named in `missing`.
   */
  async apply(upstream: string, tools: readonly string[]): Promise<ApplyOutcome | { readonly missing: readonly string[] } | undefined> {
    const view = await this.#learner.view(upstream, true);
    if (!view) return undefined;
    const entries = new Map<string, InferredEntry>();
    const missing: string[] = [];
    for (const tool of tools) {
      const proposal = view.tools.find((t) => t.tool === tool)?.proposal;
      if (proposal) entries.set(tool, proposal);
      else missing.push(tool);
    }
    if (missing.length > 0) return { missing };
    return applyEntries(this.#options.generations.current.config.file, upstream, entries);
  }
}
