/** `mcp-retrofit serve`. STUB until its issue lands. */
import type { CliIo } from '../cli.js';

export async function run(_args: readonly string[], io: CliIo): Promise<number> {
  io.stderr.write('serve: not implemented yet\n');
  return 1;
}
