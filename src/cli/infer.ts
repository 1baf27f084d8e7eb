/**
 * `mcp-retrofit infer --config FILE [--upstream NAME] [--tool GLOB | --explain TOOL] [--from DIR] [--call FILE]`:
 * learn each tool's `extract` and `outputSchema` from real results and print the `tools:` block to paste into
 * the config (with `--explain TOOL`, why each keyword of that one tool's schema was chosen, instead). The
 * results are the recorder's files (`--from DIR`, default the upstream's `record.dir`), or the answers to the
 * calls in FILE made on the upstream now (`--call` alone). With both, the recordings teach and the fresh
 * calls check: an entry that fails one is withdrawn. The inference is src/infer/ (pure); this
 * file gets the samples and prints. stdout: the YAML, scrubbed of the config's secrets; stderr: what was
 * skipped. Exit 0 when results were read (even if some tools got no entry), 1 when there were none (or the
 * upstream could not be reached, or the config has problems), 2 on usage errors.
 */
import { readFile } from 'node:fs/promises';
import type { CliIo } from './io.js';
import { ConfigError, loadConfig } from '../config/load.js';
import { formatProblem } from '../config/problems.js';
import type { GatewayConfig, UpstreamConfig } from '../config/types.js';
import { byTool, inferUpstream, type InferSample } from '../infer/index.js';
import { Redactor } from '../log.js';
import { createMatcher, globProblem } from '../policy/match.js';
import { readSamples } from '../record/read.js';
import { explainTool } from '../infer/explain.js';
import { callUpstream, parseCalls } from './infer-call.js';
import { isFileError, parseOptions, runCommand, UsageError } from './options.js';
import { usageOf } from './usage.js';

const USAGE = usageOf('infer');
const OPTIONS = ['config', 'upstream', 'tool', 'from', 'call', 'explain'] as const;
type Option = (typeof OPTIONS)[number];
type Sample = { readonly tool: string } & InferSample;

function parseArgs(args: readonly string[]): Partial<Record<Option, string>> {
  const out = parseOptions(args, OPTIONS);
  if (out.config === undefined) throw new UsageError('--config FILE is required');
  if (out.tool !== undefined && out.explain !== undefined) throw new UsageError('give --tool or --explain, not both');
  return out;
}

function pickUpstream(upstreams: readonly UpstreamConfig[], name: string | undefined): UpstreamConfig {
  const known = upstreams.map((u) => u.name).join(', ');
  if (name === undefined) {
    if (upstreams.length === 1) return upstreams[0]!;
    throw new UsageError(`--upstream NAME is required: the config has ${upstreams.length} upstreams (${known})`);
  }
  const found = upstreams.find((u) => u.name === name);
  if (!found) throw new UsageError(`no upstream "${name}" in the config (known: ${known})`);
  return found;
}

/** The samples and where they came from; problems go to stderr as they are met. */
async function samplesOf(
  upstream: UpstreamConfig,
  opts: Partial<Record<Option, string>>,
  wanted: (tool: string) => boolean,
  config: Pick<GatewayConfig, 'file' | 'secrets' | 'limits'>,
  warn: (line: string) => void,
): Promise<{ samples: Sample[]; from: string }> {
  if (opts.call !== undefined && opts.from === undefined) return called(upstream, opts.call, wanted, config, warn);
  const dir = opts.from ?? upstream.record?.dir;
  if (dir === undefined) throw new UsageError(`give --from DIR or --call FILE (upstream "${upstream.name}" has no record.dir)`);
  const { samples, problems } = await readSamples(dir, upstream.name);
  for (const p of problems) warn(p);
  return { samples: samples.filter((s) => wanted(s.tool)), from: dir };
}

/** The results of the calls in `file`, made on the upstream now. */
async function called(
  upstream: UpstreamConfig,
  file: string,
  wanted: (tool: string) => boolean,
  config: Pick<GatewayConfig, 'file' | 'secrets' | 'limits'>,
  warn: (line: string) => void,
): Promise<{ samples: Sample[]; from: string }> {
  const parsed = parseCalls(await readFile(file, 'utf8'));
  if (typeof parsed === 'string') throw new UsageError(`${file}: ${parsed}`);
  // --tool spares the upstream the calls whose results would be thrown away.
  const calls = parsed.filter((c) => wanted(c.tool));
  if (calls.length === 0) return { samples: [], from: file };
  const { samples, failures } = await callUpstream(upstream, config, calls, upstream.timeoutMs);
  for (const f of failures) warn(f);
  return { samples: [...samples], from: `${calls.length} call${calls.length === 1 ? '' : 's'} in ${file}` };
}

async function execute(args: readonly string[], io: CliIo): Promise<number> {
  const opts = parseArgs(args);
  if (opts.tool !== undefined) {
    const problem = globProblem(opts.tool);
    if (problem !== undefined) throw new UsageError(`--tool: ${problem}`);
  }
  let loaded;
  try {
    loaded = await loadConfig(opts.config!);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const p of err.problems) io.stderr.write(`${formatProblem(p)}\n`);
    return 1;
  }
  const { config } = loaded;
  const upstream = pickUpstream(Object.values(config.upstreams), opts.upstream);
  // Results may echo a `${VAR}` token; neither the YAML nor a warning may carry it to a terminal.
  const redactor = new Redactor(config.secrets);
  const warn = (line: string): void => void io.stderr.write(`infer: warning: ${redactor.scrub(line)}\n`);

  const matcher = opts.tool === undefined ? undefined : createMatcher([opts.tool]);
  const wanted = (tool: string): boolean => (opts.explain !== undefined ? tool === opts.explain : matcher === undefined || matcher.match(tool) !== undefined);
  let got: { samples: Sample[]; from: string };
  let fresh: { samples: Sample[]; from: string } | undefined;
  try {
    got = await samplesOf(upstream, opts, wanted, config, warn);
    // Recordings teach, fresh calls check: only worth making when there is something to check.
    if (opts.call !== undefined && opts.from !== undefined && got.samples.length > 0) fresh = await called(upstream, opts.call, wanted, config, warn);
  } catch (err) {
    if (err instanceof UsageError || isFileError(err)) throw err;
    io.stderr.write(`infer: ${redactor.scrub(err instanceof Error ? err.message : String(err))}\n`);
    return 1;
  }
  const { samples } = got;
  if (samples.length === 0) {
    const which = opts.explain !== undefined ? ` of tool ${JSON.stringify(opts.explain)}` : opts.tool === undefined ? '' : ` of a tool matching ${JSON.stringify(opts.tool)}`;
    io.stderr.write(`infer: no results${which} for upstream "${upstream.name}" from ${got.from}\n`);
    return 1;
  }
  const { yaml, tools } = inferUpstream(upstream.name, byTool(samples), config.defaults, got.from, fresh && { samples: byTool(fresh.samples), from: fresh.from });
  if (opts.explain !== undefined) {
    // Why each keyword: the same statistics the schema came from, position by position.
    for (const line of tools.flatMap((t) => explainTool(t))) io.stdout.write(`${redactor.scrub(line)}\n`);
    return 0;
  }
  io.stdout.write(redactor.scrub(yaml));
  const entries = tools.filter((t) => t.entry !== undefined).length;
  io.stderr.write(`infer: ${tools.length} tool${tools.length === 1 ? '' : 's'}, ${entries} with an entry, from ${samples.length} result${samples.length === 1 ? '' : 's'}\n`);
  return 0;
}

export function run(args: readonly string[], io: CliIo): Promise<number> {
  return runCommand('infer', USAGE, args, io, () => execute(args, io));
}
