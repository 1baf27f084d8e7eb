/**
 * The JSON the console's API answers (docs/console.md), as the pages read it. Times are milliseconds since the
 * epoch; counts are integers.
 */

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** GET /ui/api/overview */
export interface Overview {
  readonly version: string;
  readonly startedAt: number;
  readonly write: boolean;
  readonly csrf: string;
  readonly recordingUpstreams: readonly string[];
}

/** One upstream of GET /ui/api/upstreams. */
export interface Upstream {
  readonly name: string;
  readonly kind: 'http' | 'stdio' | 'sse';
  readonly path: string;
  readonly target: string;
  readonly revision: string | null;
  readonly bridged: number;
  readonly sessions: number;
  readonly children: number | null;
  readonly errors: Readonly<Record<string, number>>;
  readonly ready: { readonly ok: boolean; readonly detail: string | null };
  readonly recording: boolean;
  readonly tools: { readonly seen: number; readonly typed: number };
}

export interface UpstreamsReply {
  readonly upstreams: readonly Upstream[];
}

/** The outcomes a tool's totals count. */
export const TOTALS = ['native', 'extracted', 'invalid', 'unparseable', 'shadow'] as const;
/** The outcomes a tool's series chart. */
export const SERIES = ['extracted', 'validated', 'invalid', 'unparseable', 'shadow'] as const;
export type SeriesName = (typeof SERIES)[number];

/** One tool of GET /ui/api/upstreams/<upstream>/tools. */
export interface ToolRow {
  readonly name: string;
  readonly schema: 'configured' | 'declared' | 'none';
  readonly mode: 'on' | 'shadow' | 'unseen';
  readonly totals: Readonly<Record<(typeof TOTALS)[number], number>>;
  readonly series: Readonly<Record<SeriesName, readonly number[]>>;
  readonly addedMs: { readonly p50: number; readonly p95: number; readonly count: number } | null;
}

export interface ToolsReply {
  readonly upstream: string;
  readonly windowMs: number;
  readonly stepMs: number;
  readonly end: number;
  readonly tools: readonly ToolRow[];
}

/** What failed in a sample: a JSON pointer into the value read from the text ("" the root; null: none named). */
export interface Reason {
  readonly pointer: string | null;
  readonly message: string;
}

interface Sample {
  readonly at: number;
  readonly format: string | null;
  readonly mode: string;
  readonly revision: string | null;
  /** Null when the gateway did not have the result's text at hand. */
  readonly text: string | null;
  readonly truncated: boolean;
}

export interface Failure extends Sample {
  readonly outcome: string;
  readonly reasons: readonly Reason[];
}

export interface Success extends Sample {
  readonly structuredContent: Json;
}

/** GET /ui/api/upstreams/<upstream>/tools/<tool> */
export interface ToolDetail extends ToolRow {
  readonly outputSchema: Json | null;
  readonly extract: Json | null;
  readonly failures: readonly Failure[];
  readonly successes: readonly Success[];
}

export interface SessionRow {
  readonly upstream: string;
  readonly id: string;
  readonly client: { readonly name: string | null; readonly version: string | null } | null;
  readonly revision: string | null;
  readonly upstreamRevision: string | null;
  readonly bridged: boolean;
  readonly profile: string | null;
  readonly openedAt: number;
}

/** GET /ui/api/sessions */
export interface SessionsReply {
  readonly total: number;
  readonly byRevision: Readonly<Record<string, number>>;
  readonly byClient: Readonly<Record<string, number>>;
  readonly byProfile: Readonly<Record<string, number>>;
  readonly bridged: number;
  /** Sessions opened while 20,000 were held: in neither the list nor the aggregates. */
  readonly unlisted?: number;
  readonly sessions: readonly SessionRow[];
}

export interface LearnTool {
  readonly tool: string;
  readonly samples: number;
  readonly confidence: 'high' | 'medium' | 'low' | null;
  readonly proposal: { readonly extract?: Json; readonly outputSchema?: Json } | null;
  readonly reason: string | null;
  readonly running: { readonly extract: Json | null; readonly outputSchema: Json | null } | null;
  readonly diff: string;
  readonly trial: { readonly passed: number; readonly failed: number; readonly failures: readonly { readonly sample: string; readonly reasons: readonly string[] }[] } | null;
  readonly sampleFiles: readonly string[];
}

/** GET /ui/api/learn/<upstream> */
export interface LearnReply {
  readonly upstream: string;
  readonly dir: string;
  readonly results: number;
  readonly write: boolean;
  readonly tools: readonly LearnTool[];
  readonly yaml: string;
  /** Recording files that were skipped, and why. */
  readonly problems?: readonly string[];
}

/** POST /ui/api/learn/<upstream>/apply, 200 */
export interface ApplyReply {
  readonly written: string;
  readonly backup: string | null;
  readonly tools: readonly string[];
  /** The reload that followed (null: the process has no reloader). */
  readonly reload?: { readonly ok: true } | { readonly ok: false; readonly problems: readonly string[] } | null;
}
