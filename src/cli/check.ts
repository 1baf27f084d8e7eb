/**
 * `mcp-retrofit check --config FILE [--probe [--timeout MS]]`: loads the config exactly as `serve` would
 * (schema, schema files, patterns, compiled tool policies) and prints `ok` (exit 0), or every problem as
 * `FILE:LINE:COL message` on stderr (exit 1); warnings (src/config/warnings.ts) follow `ok` on stderr as
 * `FILE:LINE:COL warning: …` and do not change the exit code. With `--probe` it then lists every upstream's tools and
 * prints the repairs and retrofit each would get (src/probe/run.ts); an upstream that does not answer
 * makes the exit code 1.
 */
import { isAbsolute, relative } from 'node:path';
import type { CliIo } from './io.js';
import { ConfigError, loadConfig, type LoadedConfig } from '../config/load.js';
import { formatProblem } from '../config/problems.js';
import { readConfigWarnings } from '../config/warnings.js';
import { probeUpstreams } from '../probe/run.js';
import { usageOf } from './usage.js';

const USAGE = usageOf('check');

interface CheckArgs {
  readonly config?: string;
  readonly probe: boolean;
  /** Per-upstream probe deadline; the probe's default when absent. */
  readonly timeoutMs?: number;
}

function parseTimeout(text: string | undefined): number | string {
  const ms = Number(text);
  return text !== undefined && /^\d+$/.test(text) && ms > 0 ? ms : '--timeout needs a positive number of milliseconds';
}

function parseArgs(args: readonly string[]): CheckArgs | string {
  let config: string | undefined;
  let probe = false;
  let timeoutMs: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--probe') probe = true;
    else if (arg === '--timeout' || arg.startsWith('--timeout=')) {
      const value = arg === '--timeout' ? args[++i] : arg.slice('--timeout='.length);
      const parsed = parseTimeout(value);
      if (typeof parsed === 'string') return parsed;
      timeoutMs = parsed;
    }
    else if (arg === '--config' || arg === '-c') {
      const next = args[i + 1];
      if (next === undefined || next.startsWith('-')) return '--config needs a file';
      config = next;
      i++;
    } else if (arg.startsWith('--config=')) config = arg.slice('--config='.length);
    else return `unknown argument "${arg}"`;
  }
  if (timeoutMs !== undefined && !probe) return '--timeout only applies with --probe';
  const base = timeoutMs === undefined ? { probe } : { probe, timeoutMs };
  return config === undefined || config === '' ? base : { ...base, config };
}

/** Paths under the working directory print relative, as editors and terminals link them either way. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

export async function run(args: readonly string[], io: CliIo): Promise<number> {
  if (args.includes('-h') || args.includes('--help')) {
    io.stdout.write(USAGE);
    return 0;
  }
  const parsed = parseArgs(args);
  if (typeof parsed === 'string') {
    io.stderr.write(`check: ${parsed}\n${USAGE}`);
    return 1;
  }
  if (parsed.config === undefined) {
    io.stderr.write(`check: --config FILE is required\n${USAGE}`);
    return 1;
  }
  let loaded: LoadedConfig;
  try {
    loaded = await loadConfig(parsed.config);
  } catch (err) {
    if (!(err instanceof ConfigError)) {
      io.stderr.write(`check: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
    for (const p of err.problems) io.stderr.write(`${formatProblem({ ...p, file: shown(p.file) })}\n`);
    return 1;
  }
  // Settings that work, but not as written: stderr, and never a failure.
  for (const w of await readConfigWarnings(loaded)) io.stderr.write(`${formatProblem({ ...w, file: shown(w.file) })}\n`);
  if (!parsed.probe) {
    io.stdout.write('ok\n');
    return 0;
  }
  // The verdict once it is known: `ok` after a probe every upstream answered, never before one that did not.
  const code = await probeUpstreams(loaded, io, parsed.timeoutMs === undefined ? { shownFile: shown } : { shownFile: shown, timeoutMs: parsed.timeoutMs });
  if (code === 0) io.stdout.write('ok\n');
  return code;
}
