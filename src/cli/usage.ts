/**
 * Each command's synopsis, in one place: the command prints its own on a usage error, and `mcp-retrofit --help`
 * prints them all (without loading the commands).
 */
export const SYNOPSIS = {
  serve: 'mcp-retrofit [serve] --config FILE [--host H] [--port N] [--watch]',
  check: 'mcp-retrofit check --config FILE [--probe [--timeout MS]]',
  try: 'mcp-retrofit try --config FILE --upstream NAME --tool TOOL (--text-file F | --result-file F) [--protocol VERSION] [--client NAME[@VERSION]]',
  infer: 'mcp-retrofit infer --config FILE [--upstream NAME] [--tool GLOB | --explain TOOL] [--from DIR] [--call FILE]',
} as const;

/** One command's usage line. */
export function usageOf(command: keyof typeof SYNOPSIS): string {
  return `usage: ${SYNOPSIS[command]}\n`;
}

/** Every command's. */
export const USAGE = `usage:\n${Object.values(SYNOPSIS)
  .map((line) => `  ${line}\n`)
  .join('')}`;
