/**
 * The Learn page's "apply": write proposed entries into an upstream's `tools:` in the config file. The file
 * is edited as a YAML document (comments, order and the rest of the file kept); the result is written beside
 * it and loaded with the loader `mcp-retrofit check` uses before anything is replaced; then the previous file
 * is kept as `<file>.bak` (older ones shift to `.bak.1` … `.bak.<BACKUPS-1>`) and the new one renamed over it,
 * so a reader (the hot reload) sees either file whole.
 */
import { copyFile, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isMap, parseDocument } from 'yaml';
import { literalValue } from '../config/expand.js';
import { ConfigError, loadConfig } from '../config/load.js';
import { formatProblem } from '../config/problems.js';
import type { InferredEntry } from '../infer/index.js';
import { literalKey } from '../policy/match.js';

/** Backups kept: `.bak`, then `.bak.1` … */
export const BACKUPS = 5;

/** What an apply did, or why it did nothing. */
export type ApplyOutcome =
  | { readonly ok: true; readonly written: string; readonly backup: string; readonly tools: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

/** The config text with `entries` written under `upstreams.<upstream>.tools`, or the problems in the way. */
export function editConfig(text: string, upstream: string, entries: ReadonlyMap<string, InferredEntry>): { text: string } | { problems: string[] } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return { problems: doc.errors.map((e) => e.message) };
  if (!isMap(doc.getIn(['upstreams', upstream]))) return { problems: [`upstreams.${upstream} is not a map in the file`] };
  for (const [tool, entry] of entries) {
    // A name with glob characters is written escaped, so its key governs that tool alone (as infer writes it).
    const path = ['upstreams', upstream, 'tools', literalKey(tool)];
    const existing = doc.getIn(path);
    if (!isMap(existing)) {
      doc.setIn(path, doc.createNode(literalValue(entry.extract === undefined ? { outputSchema: entry.outputSchema } : { extract: entry.extract, outputSchema: entry.outputSchema })));
      continue;
    }
    // An entry already there keeps its other settings (shadow, onInvalid, …): only what Learn proposes changes.
    existing.delete('outputSchemaFile');
    doc.setIn([...path, 'outputSchema'], doc.createNode(literalValue(entry.outputSchema)));
    if (entry.extract === undefined) existing.delete('extract');
    else doc.setIn([...path, 'extract'], doc.createNode(literalValue(entry.extract)));
  }
  return { text: doc.toString({ lineWidth: 0 }) };
}

/** `file.bak` → `file.bak.1` → … (the oldest dropped), then `file` copied to `file.bak`. */
async function backUp(file: string): Promise<string> {
  const name = (i: number): string => (i === 0 ? `${file}.bak` : `${file}.bak.${i}`);
  for (let i = BACKUPS - 1; i > 0; i--) {
    try {
      await rename(name(i - 1), name(i));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  await copyFile(file, name(0));
  return name(0);
}

let serial = 0;

/** Write `entries` into `file` when the result passes check; else nothing is written. */
export async function applyEntries(file: string, upstream: string, entries: ReadonlyMap<string, InferredEntry>): Promise<ApplyOutcome> {
  const edited = editConfig(await readFile(file, 'utf8'), upstream, entries);
  if ('problems' in edited) return { ok: false, problems: edited.problems.map((p) => `${file}:1:1 ${p}`) };
  // Beside the file, so its relative schema files resolve the same; a name the config watch ignores.
  const candidate = join(dirname(file), `.${basename(file)}.console-${process.pid}-${serial++}.tmp`);
  await writeFile(candidate, edited.text, { mode: (await stat(file)).mode & 0o777 });
  try {
    await loadConfig(candidate);
  } catch (err) {
    await unlink(candidate).catch(() => {});
    if (!(err instanceof ConfigError)) return { ok: false, problems: [`${file}:1:1 ${err instanceof Error ? err.message : String(err)}`] };
    return { ok: false, problems: err.problems.map((p) => formatProblem({ ...p, file: p.file === candidate ? file : p.file })) };
  }
  try {
    const backup = await backUp(file);
    await rename(candidate, file);
    return { ok: true, written: file, backup, tools: [...entries.keys()] };
  } catch (err) {
    await unlink(candidate).catch(() => {});
    throw err;
  }
}
