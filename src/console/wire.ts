/**
 * The JSON the console's API answers (docs/console.md), as one set of types: the server's views build these
 * values and the pages (ui/src/types.ts) read them. Pure type declarations with no imports, so the pages can
 * import this file type-only without pulling in Node's types. Times are milliseconds since the epoch; counts
 * are integers.
 */

/** Any JSON value (the same type as src/json.ts `Json`, declared here so this file imports nothing). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** `GET /ui/api/overview`. */
export interface Overview {
  readonly version: string;
  readonly startedAt: number;
  readonly write: boolean;
  /** The token a page sends back as `x-retrofit-csrf` on writes (one per process, random). */
  readonly csrf: string;
  readonly recordingUpstreams: readonly string[];
}

/** One upstream in `GET /ui/api/upstreams`. */
export interface Upstream {
  readonly name: string;
  readonly kind: 'http' | 'stdio' | 'sse';
  readonly path: string;
  /** The URL or command line, scrubbed of secrets. */
  readonly target: string;
  /** The revision the upstream last answered initialize with (null: none yet). */
  readonly revision: string | null;
  readonly bridged: number;
  readonly sessions: number;
  /** Null for an upstream that is not stdio. */
  readonly children: number | null;
  readonly errors: Readonly<Record<string, number>>;
  readonly ready: { readonly ok: boolean; readonly detail: string | null };
  readonly recording: boolean;
  readonly tools: { readonly seen: number; readonly typed: number };
}

/** `GET /ui/api/upstreams`. */
export interface UpstreamsReply {
  readonly upstreams: readonly Upstream[];
}

/** The outcomes a tool's totals count (in `GET /ui/api/upstreams/<upstream>/tools`). */
export type TotalName = 'native' | 'extracted' | 'invalid' | 'unparseable' | 'shadow';

/** The outcomes a tool's per-minute series count (in `GET /ui/api/upstreams/<upstream>/tools`). */
export type SeriesName = 'extracted' | 'validated' | 'invalid' | 'unparseable' | 'shadow';

/** Percentiles of the retrofit's added time, and how many were observed in all (a tool's `addedMs`). */
export interface Percentiles {
  readonly p50: number;
  readonly p95: number;
  readonly count: number;
}

/** One tool in `GET /ui/api/upstreams/<upstream>/tools`. */
export interface ToolRow {
  readonly name: string;
  readonly schema: 'configured' | 'declared' | 'none';
  readonly mode: 'on' | 'shadow' | 'unseen';
  readonly totals: Readonly<Record<TotalName, number>>;
  /** Per-minute counts over the last hour, oldest first. */
  readonly series: Readonly<Record<SeriesName, readonly number[]>>;
  readonly addedMs: Percentiles | null;
}

/** `GET /ui/api/upstreams/<upstream>/tools`. */
export interface ToolsReply {
  readonly upstream: string;
  readonly windowMs: number;
  readonly stepMs: number;
  /** The end of the newest bucket of every series. */
  readonly end: number;
  readonly tools: readonly ToolRow[];
}

/**
 * One reason of a failure in `GET /ui/api/upstreams/<upstream>/tools/<tool>`: the JSON pointer into the value
 * read from the text ("" for the root; null when it names none) and its message.
 */
export interface Reason {
  readonly pointer: string | null;
  readonly message: string;
}

/** What a failure and a success in `GET /ui/api/upstreams/<upstream>/tools/<tool>` both say. */
export interface Sample {
  readonly at: number;
  readonly format: string | null;
  readonly mode: string;
  /** The client's revision. */
  readonly revision: string;
  /** The result's text, scrubbed and cut; null when the gateway did not have it at hand. */
  readonly text: string | null;
  readonly truncated: boolean;
}

/** A failure in `GET /ui/api/upstreams/<upstream>/tools/<tool>`. */
export interface Failure extends Sample {
  readonly outcome: string;
  readonly reasons: readonly Reason[];
}

/** A success in `GET /ui/api/upstreams/<upstream>/tools/<tool>`. */
export interface Success extends Sample {
  /** What the client got (null when it got none, in shadow mode, or when the text was cut). */
  readonly structuredContent: Json;
}

/** `GET /ui/api/upstreams/<upstream>/tools/<tool>`: the tool's row, plus its settings and last samples. */
export interface ToolDetail extends ToolRow {
  readonly outputSchema: Json | null;
  readonly extract: Json | null;
  /** Newest first. */
  readonly failures: readonly Failure[];
  /** Newest first. */
  readonly successes: readonly Success[];
}

/** One session in `GET /ui/api/sessions`. */
export interface SessionRow {
  readonly upstream: string;
  /** The first 8 characters of the id, then `…`: the whole id is a bearer of the session. */
  readonly id: string;
  readonly client: { readonly name: string | null; readonly version: string | null } | null;
  /** Null until initialize was answered. */
  readonly revision: string | null;
  /** Null until initialize was answered. */
  readonly upstreamRevision: string | null;
  readonly bridged: boolean;
  readonly profile: string | null;
  readonly openedAt: number;
}

/** `GET /ui/api/sessions`. */
export interface SessionsReply {
  readonly total: number;
  readonly byRevision: Readonly<Record<string, number>>;
  readonly byClient: Readonly<Record<string, number>>;
  readonly byProfile: Readonly<Record<string, number>>;
  readonly bridged: number;
  /** Sessions opened while 20,000 were held: in neither the list nor the aggregates. */
  readonly unlisted: number;
  /** At most 1,000, newest first. */
  readonly sessions: readonly SessionRow[];
}

/** A proposed tool entry in `GET /ui/api/learn/<upstream>`: what infer proposes (a type, not an interface, so it is a Json). */
export type LearnProposal = {
  readonly extract?: Json;
  readonly outputSchema: Json;
};

/** One tool in `GET /ui/api/learn/<upstream>`. */
export interface LearnTool {
  readonly tool: string;
  readonly samples: number;
  /** Null without a proposal. */
  readonly confidence: 'high' | 'medium' | 'low' | null;
  readonly proposal: LearnProposal | null;
  /** Why there is no proposal (null when there is one). */
  readonly reason: string | null;
  /** The running config's entry for the tool; null when none governs it. */
  readonly running: { readonly extract: Json | null; readonly outputSchema: Json | null } | null;
  /** Unified diff of the tool's YAML, running → proposed. */
  readonly diff: string;
  /** The proposal tried against every recorded sample; null without a proposal. */
  readonly trial: { readonly passed: number; readonly failed: number; readonly failures: readonly { readonly sample: string; readonly reasons: readonly string[] }[] } | null;
  readonly sampleFiles: readonly string[];
}

/** `GET /ui/api/learn/<upstream>`. */
export interface LearnReply {
  readonly upstream: string;
  readonly dir: string;
  readonly results: number;
  readonly write: boolean;
  readonly tools: readonly LearnTool[];
  /** The `tools:` block infer prints. */
  readonly yaml: string;
  /** Recording files that were skipped, and why. */
  readonly problems: readonly string[];
}

/** What the reload after an apply said (`reload` of `POST /ui/api/learn/<upstream>/apply`). */
export type ReloadReport = { readonly ok: true } | { readonly ok: false; readonly problems: readonly string[] };

/** `POST /ui/api/learn/<upstream>/apply`, 200. */
export interface ApplyReply {
  readonly written: string;
  /** The previous file, kept as `<file>.bak`. */
  readonly backup: string;
  readonly tools: readonly string[];
  /** The reload that followed (null: the process has no reloader). */
  readonly reload: ReloadReport | null;
}
