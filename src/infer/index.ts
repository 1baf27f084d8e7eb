/**
 * `mcp-retrofit infer`, the pure part: samples of an upstream's tools/call results in, the `tools:` block to
 * paste into the config out. No I/O: the command (src/cli/infer.ts) reads recordings or calls the upstream.
 */
import type { ToolDefaults } from '../config/types.js';
import { renderTools } from './render.js';
import { inferTool, type ToolInference } from './tool.js';
import type { InferSample } from './verify.js';

export { inferSchema, ENUM_MAX_VALUES, ENUM_MIN_REPEATS, ENUM_MIN_SAMPLES, MAX_DEPTH } from './schema.js';
export { READERS, trialOrder, type Reader } from './readers.js';
export { inferTool, type InferredEntry, type ToolInference } from './tool.js';
export { VERIFIED_REVISIONS, verifyEntry, type InferSample, type VerifyFailure } from './verify.js';

/** What infer made of one upstream's samples. */
export interface UpstreamInference {
  /** One per tool, in name order. */
  readonly tools: readonly ToolInference[];
  /** The YAML text: a header comment and the `tools:` block. */
  readonly yaml: string;
}

/** Groups samples by tool (first-seen order). */
export function byTool(samples: Iterable<{ readonly tool: string } & InferSample>): Map<string, InferSample[]> {
  const out = new Map<string, InferSample[]>();
  for (const { tool, result, source } of samples) {
    const list = out.get(tool) ?? [];
    list.push({ result, source });
    out.set(tool, list);
  }
  return out;
}

/** Infers every tool's entry; `from` says where the samples came from, for the header. */
export function inferUpstream(upstream: string, samples: ReadonlyMap<string, readonly InferSample[]>, defaults: ToolDefaults, from: string): UpstreamInference {
  const tools = [...samples].map(([tool, list]) => inferTool(tool, list, defaults)).sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  const count = [...samples.values()].reduce((n, list) => n + list.length, 0);
  const header = [
    `mcp-retrofit infer: ${tools.length} tool${tools.length === 1 ? '' : 's'} of upstream "${upstream}", ${count} result${count === 1 ? '' : 's'} from ${from}.`,
    `Paste under upstreams.${upstream} (replacing its tools:), review, then run mcp-retrofit check.`,
  ];
  return { tools, yaml: renderTools(header, tools) };
}
