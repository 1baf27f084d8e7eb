/**
 * Reading recordings back (for `mcp-retrofit infer --from DIR`): every `DIR/<upstream>/<tool dir>/<timestamp>-<seq>.json`
 * that holds a Recording of that upstream, oldest first per tool. Files that cannot be read or are not
 * recordings are reported, not fatal: a directory an operator has been editing should still be usable.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isJsonObject } from '../json.js';
import { parseJson } from '../retrofit/safe-json.js';
import { isRecordingFileName, type Recording } from './files.js';

/** What was read, and one line per file that was skipped. */
export interface ReadRecordings {
  /** Recordings, grouped by tool (first-seen order), oldest first within a tool. */
  readonly recordings: readonly (Recording & { readonly file: string })[];
  readonly problems: readonly string[];
}

function asRecording(value: unknown): Recording | string {
  if (!isJsonObject(value)) return 'not a JSON object';
  const { upstream, tool, recordedAt, result, protocolRevision } = value;
  if (typeof upstream !== 'string' || typeof tool !== 'string' || !isJsonObject(result)) return 'not a recording (needs upstream, tool and result)';
  return {
    upstream,
    tool,
    recordedAt: typeof recordedAt === 'string' ? recordedAt : '',
    ...(typeof protocolRevision === 'string' && { protocolRevision }),
    result,
  };
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

/** One recorded result as `infer` learns from it: its tool, its result, and the file it came from. */
export interface RecordedSample {
  readonly tool: string;
  readonly result: Recording['result'];
  readonly source: string;
}

/** The recordings of `upstream` under `dir` as samples (`infer --from`), and what was skipped. */
export async function readSamples(dir: string, upstream: string): Promise<{ samples: RecordedSample[]; problems: readonly string[] }> {
  const { recordings, problems } = await readRecordings(dir, upstream);
  return { samples: recordings.map(sampleOf), problems };
}

/**
 * The recordings of `upstream` under `dir`, one tool directory at a time (the console's Learn page), so what
 * is held at once is one tool's recordings (`record.maxPerTool` files of at most `record.maxBytes` each), never
 * the whole directory.
 */
export async function* samplesByToolDir(dir: string, upstream: string): AsyncGenerator<{ samples: RecordedSample[]; problems: readonly string[] }> {
  const base = join(dir, upstream);
  for (const toolDir of await entries(base)) {
    const { recordings, problems } = await readToolDir(base, toolDir, upstream);
    yield { samples: recordings.map(sampleOf), problems };
  }
}

const sampleOf = (r: Recording & { file: string }): RecordedSample => ({ tool: r.tool, result: r.result, source: r.file });

/** The recordings of `upstream` under the recorder root `dir`. Throws only when `dir/<upstream>` cannot be listed. */
export async function readRecordings(dir: string, upstream: string): Promise<ReadRecordings> {
  const base = join(dir, upstream);
  const recordings: (Recording & { file: string })[] = [];
  const problems: string[] = [];
  for (const toolDir of await entries(base)) {
    const one = await readToolDir(base, toolDir, upstream);
    recordings.push(...one.recordings);
    problems.push(...one.problems);
  }
  return { recordings, problems };
}

async function readToolDir(base: string, toolDir: string, upstream: string): Promise<{ recordings: (Recording & { file: string })[]; problems: string[] }> {
  const recordings: (Recording & { file: string })[] = [];
  const problems: string[] = [];
  const names = (await readdir(join(base, toolDir))).filter(isRecordingFileName).sort();
  for (const name of names) {
    const file = join(base, toolDir, name);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      problems.push(`${file}: cannot read (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
      continue;
    }
    const parsed = parseJson(text);
    const recording = parsed.ok ? asRecording(parsed.value) : 'not JSON';
    if (typeof recording === 'string') problems.push(`${file}: ${recording}`);
    else if (recording.upstream !== upstream) problems.push(`${file}: recorded for upstream "${recording.upstream}", not "${upstream}"`);
    else recordings.push({ ...recording, file });
  }
  return { recordings, problems };
}
