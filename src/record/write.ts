/**
 * Writing one recording and keeping only the newest N per tool. Files are written under a temporary name
 * and renamed, so `mcp-retrofit infer` (or an operator) never reads half a file; pruning lists the tool's
 * directory each time, so files removed by hand or written by an earlier run are counted right.
 */
import { mkdir, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRecordingFileName, toolDirName, type Recording } from './files.js';

/** Where one tool's recordings live under a recorder root. */
export function toolDir(root: string, upstream: string, tool: string): string {
  return join(root, upstream, toolDirName(tool));
}

/**
 * Most tool directories one upstream's recordings may have. maxPerTool bounds each tool, and tool names are the
 * upstream's choice: one that answers any name (and a `"*"` entry that records them all) would otherwise add a
 * directory per name without end.
 */
export const MAX_RECORDED_TOOLS = 1000;

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Entries under the upstream's directory (its tools'), 0 when it does not exist yet. */
async function toolDirsOf(root: string, upstream: string): Promise<number> {
  try {
    return (await readdir(join(root, upstream))).length;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}

/**
 * Writes `recording` as `fileName` in its tool's directory, then deletes that directory's oldest recordings
 * beyond `keep`; 'too_many_tools' (nothing written) when the tool has no directory yet and its upstream has
 * MAX_RECORDED_TOOLS. `made` remembers directories known to exist (one check per tool per process).
 */
export async function writeRecording(root: string, recording: Recording, fileName: string, keep: number, made: Set<string>): Promise<'written' | 'too_many_tools'> {
  const dir = toolDir(root, recording.upstream, recording.tool);
  if (!made.has(dir)) {
    // A new tool: counted against its upstream's directories (on disk, so a restart does not reset the bound).
    if (!(await exists(dir)) && (await toolDirsOf(root, recording.upstream)) >= MAX_RECORDED_TOOLS) return 'too_many_tools';
    await mkdir(dir, { recursive: true });
    made.add(dir);
  }
  const file = join(dir, fileName);
  const temporary = `${file}.tmp`;
  try {
    // One line, as compact as the result was measured against maxBytes: indented, a result nested deep costs
    // its depth in blanks on every line (a 240 KB answer of nested arrays made a 98 MB file).
    await writeFile(temporary, `${JSON.stringify(recording)}\n`);
    await rename(temporary, file);
  } catch (err) {
    // The directory may have been removed since: forget it, so the next write creates it again.
    made.delete(dir);
    await unlink(temporary).catch(() => {});
    throw err;
  }
  await prune(dir, keep);
  return 'written';
}

/** Deletes the oldest recordings in `dir` beyond the newest `keep`; returns how many it deleted. */
export async function prune(dir: string, keep: number): Promise<number> {
  const names = (await readdir(dir)).filter(isRecordingFileName).sort();
  const old = names.slice(0, Math.max(0, names.length - keep));
  for (const name of old) {
    await unlink(join(dir, name)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }
  return old.length;
}
