/**
 * The Learn page's data: for an upstream that records, what `infer` proposes per tool from its recordings
 * (the same inference as `mcp-retrofit infer --from`, src/infer/), how sure it is, how it differs from the
 * running entry, and a trial of it against every recorded sample (as `try` would). Computed off the request:
 * one tool at a time, yielding to the event loop between tools; cached per upstream until its recordings
 * directory changes, looked at no more than once every RECHECK_MS.
 */
import { readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Document } from 'yaml';
import { literalValue } from '../config/expand.js';
import type { ToolDefaults, UpstreamConfig } from '../config/types.js';
import { byTool, inferHeader, inferTool, pasteLine, renderTools, verifyEntry, type InferSample, type InferredEntry, type ToolInference } from '../infer/index.js';
import { samplesByToolDir } from '../record/read.js';
import type { UpstreamPolicy } from '../retrofit/policy.js';
import { lineDiff } from './diff.js';
import type { Json, LearnReply, LearnTool } from './wire.js';

/** How often a cached result's directory is looked at again (ms). */
export const RECHECK_MS = 3_000;
/** Failing samples listed per tool's trial. */
const TRIAL_FAILURES = 20;

/**
 * One tool on the Learn page as kept: LearnTool, its proposal the typed entry that apply writes into the
 * config (on the wire it is that entry's JSON).
 */
export interface LearnToolView extends Omit<LearnTool, 'proposal'> {
  readonly proposal: InferredEntry | null;
}

/** `GET /ui/api/learn/<upstream>` (less `write`, which the route adds), as kept. */
export interface LearnView extends Omit<LearnReply, 'write' | 'tools'> {
  readonly tools: readonly LearnToolView[];
}

/** How sure the proposal is: by how many samples it stands on and how it reads them. */
export function confidenceOf(inference: ToolInference): LearnTool['confidence'] {
  if (!inference.entry) return null;
  if (inference.samples < 3) return 'low';
  const loose = /embedded|relaxed|auto|prose/.test(inference.reading ?? '') || inference.notes.some((n) => n.startsWith('query-style'));
  return inference.samples < 10 || loose ? 'medium' : 'high';
}

/** The tool's entry as YAML (only what Learn proposes: extract and outputSchema), its strings literal. */
function entryYaml(tool: string, entry: { readonly extract?: unknown; readonly outputSchema?: unknown } | null): string {
  if (!entry) return '';
  const shown: Record<string, unknown> = {};
  if (entry.extract !== undefined && entry.extract !== null) shown.extract = entry.extract;
  if (entry.outputSchema !== undefined && entry.outputSchema !== null) shown.outputSchema = entry.outputSchema;
  return new Document({ [tool]: literalValue(shown) }).toString({ lineWidth: 0 });
}

function trialOf(inference: ToolInference, samples: readonly InferSample[], defaults: ToolDefaults): LearnTool['trial'] {
  if (!inference.entry) return null;
  const bySample = new Map<string, string[]>();
  for (const f of verifyEntry(inference.tool, inference.entry, samples, defaults)) {
    const reasons = bySample.get(f.source) ?? [];
    reasons.push(`${f.revision}: ${f.reason}`);
    bySample.set(f.source, reasons);
  }
  const failures = [...bySample].slice(0, TRIAL_FAILURES).map(([source, reasons]) => ({ sample: basename(source), reasons }));
  return { passed: samples.length - bySample.size, failed: bySample.size, failures };
}

function toolView(inference: ToolInference, samples: readonly InferSample[], policy: UpstreamPolicy | undefined, defaults: ToolDefaults): LearnToolView {
  const entry = policy?.resolve(inference.tool)?.config;
  const running = entry ? { extract: entry.extract === undefined ? null : (entry.extract as unknown as Json), outputSchema: entry.outputSchema ?? null } : null;
  const proposal = inference.entry ?? null;
  return {
    tool: inference.tool,
    samples: inference.samples,
    confidence: confidenceOf(inference),
    proposal,
    reason: proposal ? null : inference.notes.join('; '),
    running,
    diff: lineDiff(entryYaml(inference.tool, running), entryYaml(inference.tool, proposal), { from: 'running', to: 'proposed' }),
    trial: trialOf(inference, samples, defaults),
    sampleFiles: samples.map((s) => basename(s.source)),
  };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Infer every recorded tool of `upstream`, one at a time, reading one tool directory at a time: what is held at
 * once is one tool's recordings and what was inferred so far, never every recording of the upstream.
 */
export async function learn(upstream: UpstreamConfig, dir: string, policy: UpstreamPolicy | undefined, defaults: ToolDefaults): Promise<LearnView> {
  const inferences: ToolInference[] = [];
  const tools: LearnToolView[] = [];
  const problems: string[] = [];
  let results = 0;
  for await (const read of samplesByToolDir(dir, upstream.name)) {
    problems.push(...read.problems);
    results += read.samples.length;
    for (const [tool, list] of byTool(read.samples)) {
      await tick();
      const inference = inferTool(tool, list, defaults);
      inferences.push(inference);
      tools.push(toolView(inference, list, policy, defaults));
    }
  }
  const order = (a: { tool: string }, b: { tool: string }): number => (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0);
  inferences.sort(order);
  tools.sort(order);
  const yaml = renderTools([...inferHeader(upstream.name, inferences.length, results, dir), pasteLine(upstream.name)], inferences);
  return { upstream: upstream.name, dir, results, tools, yaml, problems };
}

/** What the recordings directory of `upstream` looks like now (tool directories and their mtimes). */
export async function signature(dir: string, upstream: string): Promise<string> {
  const base = join(dir, upstream);
  try {
    const entries = (await readdir(base, { withFileTypes: true })).filter((e) => e.isDirectory());
    const parts = await Promise.all(entries.map(async (e) => `${e.name}:${(await stat(join(base, e.name))).mtimeMs}`));
    return parts.sort().join('|');
  } catch {
    return 'none';
  }
}
