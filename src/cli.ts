#!/usr/bin/env node
/**
 * mcp-retrofit command line: `serve` (the default), `check`, `try`, `infer`.
 * Each subcommand module exports `run(args, io) → exit code`, so tests call them in-process.
 */
import { pathToFileURL } from 'node:url';
import { realpathSync } from 'node:fs';

import type { CliIo } from './cli/io.js';
import { USAGE } from './cli/usage.js';

export type { CliIo } from './cli/io.js';

export async function main(argv: readonly string[], io: CliIo = process): Promise<number> {
  const [first, ...rest] = argv;
  switch (first) {
    case 'check':
      return (await import('./cli/check.js')).run(rest, io);
    case 'try':
      return (await import('./cli/try.js')).run(rest, io);
    case 'infer':
      return (await import('./cli/infer.js')).run(rest, io);
    case 'serve':
      return (await import('./cli/serve.js')).run(rest, io);
    case '-h':
    case '--help':
    case 'help':
      io.stdout.write(USAGE);
      return 0;
    case undefined:
      io.stderr.write(USAGE);
      return 1;
    default:
      if (first.startsWith('-')) return (await import('./cli/serve.js')).run(argv, io);
      io.stderr.write(`unknown command "${first}"\n${USAGE}`);
      return 1;
  }
}

function isEntryPoint(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(entry)).href;
  } catch {
    return false;
  }
}

if (isEntryPoint()) {
  main(process.argv.slice(2)).then(
    (code) => {
      // serve keeps the process alive through its server; the others exit with their code.
      if (code !== -1) process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
