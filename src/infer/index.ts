/**
 * `mcp-retrofit infer`, the pure part: samples of an upstream's tools/call results in, the `tools:` block to
 * paste into the config out. No I/O: the command (src/cli/infer.ts) reads recordings or calls the upstream.
 */
import type { ToolDefaults } from '../config/types.js';
import { renderTools } from './render.js';
import { checkFresh, inferTool, type ToolInference } from './tool.js';
import type { InferSample } from './verify.js';

export { renderTools } from './render.js';
export { inferSchema, ENUM_MAX_VALUES, ENUM_MIN_REPEATS, ENUM_MIN_SAMPLES, MAX_DEPTH } from './schema.js';
export { READERS, trialOrder, type Reader } from './readers.js';
export { checkFresh, inferTool, type InferredEntry, type ToolInference } from './tool.js';
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

/** Results of fresh calls that check, but do not teach, the entries (`infer --from DIR --call FILE`). */
export interface FreshChecks {
  readonly samples: ReadonlyMap<string, readonly InferSample[]>;
  /** Where they came from, for the header. */
  readonly from: string;
}

/**
 * Infers every tool's entry; `from` says where the samples came from, for the header. With `fresh`, each
 * entry must also hold on every fresh result of its tool, or it is withdrawn.
 */
export function inferUpstream(upstream: string, samples: ReadonlyMap<string, readonly InferSample[]>, defaults: ToolDefaults, from: string, fresh?: FreshChecks): UpstreamInference {
  const tools = [...samples]
    .map(([tool, list]) => {
      const inference = inferTool(tool, list, defaults);
      return fresh ? checkFresh(inference, fresh.samples.get(tool) ?? [], defaults) : inference;
    })
    .sort((a, b) => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  const header = inferHeader(upstream, tools.length, [...samples.values()].reduce((n, list) => n + list.length, 0), from);
  if (fresh) {
    const calls = [...fresh.samples.values()].reduce((n, list) => n + list.length, 0);
    const unrecorded = [...fresh.samples.keys()].filter((t) => !samples.has(t)).sort();
    header.push(`Every entry checked against ${calls} fresh result${calls === 1 ? '' : 's'} from ${fresh.from}.`);
    if (unrecorded.length > 0) header.push(`Called but never recorded (no entry; infer --call alone learns from calls): ${unrecorded.join(', ')}.`);
  }
  header.push(pasteLine(upstream));
  return { tools, yaml: renderTools(header, tools) };
}

/** The first line of infer's header: how many tools and results, and from where. */
export function inferHeader(upstream: string, tools: number, count: number, from: string): string[] {
  return [`mcp-retrofit infer: ${tools} tool${tools === 1 ? '' : 's'} of upstream "${upstream}", ${count} result${count === 1 ? '' : 's'} from ${from}.`];
}

/** The header's last line: what to do with the block. */
export function pasteLine(upstream: string): string {
  return `Paste under upstreams.${upstream} (replacing its tools:), review, then run mcp-retrofit check.`;
}
