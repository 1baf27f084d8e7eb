/** Process checks for tests that must prove nothing was left behind. */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';

/**
 * True while `pid` runs. A zombie (dead, not yet reaped: PID 1 of a container may never reap orphans) counts
 * as gone: it holds no pipe and runs no code.
 */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/** Resolves with the first line of `stream` that `test` accepts (rejects if the stream ends first). */
export function lineMatching(stream: Readable, test: (line: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: stream });
    lines.on('line', (line) => {
      if (!test(line)) return;
      resolve(line);
      lines.close();
    });
    lines.on('close', () => reject(new Error('stream ended before the expected line')));
  });
}
