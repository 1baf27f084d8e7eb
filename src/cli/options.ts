/**
 * What the `try` and `infer` subcommands share: `--name value` / `--name=value` options from a fixed list,
 * and the outer `run` that prints usage for -h, turns a UsageError into exit 2 with the usage line, and a
 * file that cannot be read (ENOENT, EISDIR, EACCES, ENOTDIR) into exit 2 with its message.
 */
import type { CliIo } from './io.js';

/** A mistake in the command line: exit 2 with the usage line. */
export class UsageError extends Error {}

/** The options given, by name; each at most once is not enforced (the last wins). */
export function parseOptions<O extends string>(args: readonly string[], names: readonly O[]): Partial<Record<O, string>> {
  const out: Partial<Record<O, string>> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const eq = arg.indexOf('=');
    const name = (arg.startsWith('--') ? arg.slice(2, eq < 0 ? undefined : eq) : '') as O;
    if (!names.includes(name)) throw new UsageError(`unknown argument "${arg}"`);
    const value = eq < 0 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
    out[name] = value;
  }
  return out;
}

const FILE_ERRORS = new Set(['ENOENT', 'EISDIR', 'EACCES', 'ENOTDIR']);

/** True for the errors of a file named on the command line that cannot be read. */
export function isFileError(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && FILE_ERRORS.has(code);
}

/** Runs a subcommand's `execute` with the shared handling of -h, usage errors and unreadable files. */
export async function runCommand(command: string, usage: string, args: readonly string[], io: CliIo, execute: () => Promise<number>): Promise<number> {
  if (args.includes('-h') || args.includes('--help')) {
    io.stdout.write(usage);
    return 0;
  }
  try {
    return await execute();
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`${command}: ${err.message}\n${usage}`);
      return 2;
    }
    if (isFileError(err)) {
      io.stderr.write(`${command}: ${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
}
