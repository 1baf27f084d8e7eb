/**
 * `mcp-retrofit check --config FILE [--probe]`: loads the config exactly as `serve` would (schema, schema files,
 * patterns, compiled tool policies) and prints `ok` (exit 0), or every problem as `FILE:LINE:COL message`
 * on stderr (exit 1). `--probe` (contacting the upstreams) is not implemented yet: exit 2 after the check.
 */
import { isAbsolute, relative } from 'node:path';
import type { CliIo } from '../cli.js';
import { ConfigError, loadConfig } from '../config/load.js';
import { formatProblem } from '../config/problems.js';

const USAGE = 'usage: mcp-retrofit check --config FILE [--probe]\n';

interface CheckArgs {
  readonly config?: string;
  readonly probe: boolean;
}

function parseArgs(args: readonly string[]): CheckArgs | string {
  let config: string | undefined;
  let probe = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--probe') probe = true;
    else if (arg === '--config' || arg === '-c') {
      const next = args[i + 1];
      if (next === undefined || next.startsWith('-')) return '--config needs a file';
      config = next;
      i++;
    } else if (arg.startsWith('--config=')) config = arg.slice('--config='.length);
    else return `unknown argument "${arg}"`;
  }
  return config === undefined || config === '' ? { probe } : { config, probe };
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
  try {
    await loadConfig(parsed.config);
  } catch (err) {
    if (!(err instanceof ConfigError)) {
      io.stderr.write(`check: ${err instanceof Error ? err.message : String(err)}\n`);
      return 1;
    }
    for (const p of err.problems) io.stderr.write(`${formatProblem({ ...p, file: shown(p.file) })}\n`);
    return 1;
  }
  io.stdout.write('ok\n');
  if (parsed.probe) {
    io.stderr.write('probe: not implemented yet\n');
    return 2;
  }
  return 0;
}
