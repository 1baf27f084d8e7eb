/**
 * One tool's entry from its samples: pick the first reading (readers.ts) that reads every text sample,
 * infer the outputSchema from the values read (schema.ts), and prove the entry on every sample
 * (verify.ts); an entry that fails any check is not proposed. Samples whose upstream already sent
 * structuredContent contribute that value as is. Tools whose samples are all prose get `{type: string}` (the
 * text itself); those that no one reading covers get notes saying so, and no entry.
 */
import type { ExtractConfig, ToolDefaults } from '../config/types.js';
import type { Json, JsonObject, JsonSchema } from '../json.js';
import { isGlob, literalKey } from '../policy/match.js';
import { textsOf } from '../retrofit/content.js';
import { isNonFinal } from '../retrofit/result.js';
import { isObjectRoot } from '../retrofit/wrap.js';
import { changeNote } from './changes.js';
import { trialOrder, type Reader } from './readers.js';
import { inferSchema } from './schema.js';
import { VERIFIED_REVISIONS, verifyEntry, type InferSample, type VerifyFailure } from './verify.js';

/** The `tools:` entry infer proposes. */
export interface InferredEntry {
  readonly extract?: ExtractConfig;
  readonly outputSchema: JsonSchema;
}

/** What infer found for one tool. */
export interface ToolInference {
  readonly tool: string;
  /** Results learnt from (final, non-error). */
  readonly samples: number;
  /** How they were read: a reading's name, `native` (upstream structuredContent), or both. */
  readonly reading?: string;
  /** The entry to paste; absent when none could be inferred (the notes say why). */
  readonly entry?: InferredEntry;
  /** Comment lines for the output. */
  readonly notes: readonly string[];
  /** The values the schema was inferred from (`infer --explain`), when one was. */
  readonly values?: readonly Json[];
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Readings that find a value inside text that is not all JSON (embedded, relaxed, and `auto` over mixed
 * samples, which may pick either): one sample, or samples that all say the same, may hold JSON by chance (a
 * file read that happened to be JSON): they need agreement.
 */
const NEEDS_AGREEMENT: ReadonlySet<string> = new Set(['embedded', 'relaxed', 'auto']);
/** Samples with different texts such a reading must read. */
export const MIN_AGREEING = 2;

/** The first reading that reads every text, with the values; else how many each reading managed. */
function choose(texts: readonly (readonly string[])[]): { reader: Reader; values: Json[] } | { best: readonly [string, number][] } {
  const counts: [string, number][] = [];
  const distinct = new Set(texts.map((t) => t.join('\n'))).size;
  for (const reader of trialOrder()) {
    if (NEEDS_AGREEMENT.has(reader.name) && distinct < MIN_AGREEING) continue;
    const values = texts.map((t) => (t.length === 0 ? undefined : reader.read(t)));
    const read = values.filter((v) => v !== undefined).length;
    if (read === texts.length) return { reader, values: values as Json[] };
    if (read > 0 && reader.name !== 'auto') counts.push([reader.name, read]);
  }
  return { best: counts };
}

function failureNotes(failures: readonly VerifyFailure[], checks: number): string[] {
  if (failures.length === 0) return [];
  const shown = failures.slice(0, 3).map((f) => `  ${f.source}${f.revision === '' ? '' : ` (${f.revision})`}: ${f.reason}`);
  return [`warning: ${failures.length} of ${checks} checks fail with this entry:`, ...shown];
}

function rootNote(schema: JsonSchema, defaults: ToolDefaults): string[] {
  if (isObjectRoot(schema)) return [];
  return [`non-object root: 2025-06-18/2025-11-25 clients get it ${defaults.legacyRoots === 'wrap' ? 'wrapped as {"result": …}' : 'dropped (legacyRoots: drop)'}`];
}

/** Infers the entry of `tool` from its samples; `defaults` are the config's (they decide coercion and roots). */
export function inferTool(tool: string, samples: readonly InferSample[], defaults: ToolDefaults): ToolInference {
  const finals = samples.filter((s) => !isNonFinal(s.result));
  const notes: string[] = [];
  const ignored = samples.length - finals.length;
  if (ignored > 0) notes.push(`${plural(ignored, 'error or unfinished result')} ignored`);
  if (finals.length === 0) return { tool, samples: 0, notes: [...notes, 'no result to learn from: no entry inferred'] };

  const native = finals.filter((s) => s.result.structuredContent !== undefined);
  const text = finals.filter((s) => s.result.structuredContent === undefined);
  const values: Json[] = native.map((s) => s.result.structuredContent as Json);
  let extract: ExtractConfig | undefined;
  let reading = native.length > 0 ? 'native' : '';
  if (text.length > 0) {
    const texts = text.map((s) => textsOf(s.result as JsonObject));
    const chosen = choose(texts);
    const empty = texts.filter((t) => t.length === 0).length;
    if ('best' in chosen && chosen.best.length === 0 && empty === 0 && native.length === 0) return proseTool(tool, finals, notes, defaults);
    if ('best' in chosen) {
      const why =
        chosen.best.length === 0
          ? `${plural(text.length, 'sample')} of plain prose${empty > 0 ? ` (${empty} without text)` : ''}: no schema inferred`
          : `no one format reads every sample (${chosen.best.map(([name, n]) => `${name}: ${n} of ${text.length}`).join(', ')}): no schema inferred`;
      return { tool, samples: finals.length, notes: [...notes, why] };
    }
    values.push(...chosen.values);
    extract = chosen.reader.extract;
    reading = reading === '' ? chosen.reader.name : `${reading} + ${chosen.reader.name}`;
  }

  const query = queryStyle(values);
  const outputSchema = query ? { type: 'array', items: { type: 'object' } } : inferSchema(values);
  const entry: InferredEntry = extract ? { extract, outputSchema } : { outputSchema };
  notes.unshift(`${plural(finals.length, 'sample')}, read as ${reading}`);
  if (finals.length === 1) notes.push('confidence low: one sample; record more calls, with different arguments, before trusting it');
  if (query) notes.push(`query-style: the rows' keys differ between samples (${query}): rows are objects, their keys not fixed`);
  return { ...verified(tool, entry, finals, reading, notes, defaults), ...(!query && { values }) };
}

/**
 * Results that are lists of rows whose keys change from one sample to the next (a database's query tool):
 * a schema of the columns seen would fail the next query. Two samples' key sets neither of which holds the
 * other say so (a tree whose leaves lack `children` is not that: one set holds the other). The key sets
 * when they do; else undefined.
 */
function queryStyle(values: readonly Json[]): string | undefined {
  if (values.length < 2 || !values.every((v) => Array.isArray(v) && v.length > 0 && v.every((row) => typeof row === 'object' && row !== null && !Array.isArray(row)))) return undefined;
  const shapes = values.map((v) => new Set((v as JsonObject[]).flatMap((row) => Object.keys(row))));
  const within = (a: Set<string>, b: Set<string>): boolean => [...a].every((k) => b.has(k));
  const incomparable = shapes.some((a, i) => shapes.slice(i + 1).some((b) => !within(a, b) && !within(b, a)));
  if (!incomparable) return undefined;
  return [...new Set(shapes.map((s) => `{${[...s].sort().join(',')}}`))].slice(0, 3).join(' / ');
}

/**
 * Prose (no reading finds structure in any sample): the text itself, as a string. Every client then gets the
 * text as structuredContent too (wrapped as {"result": …} for 2025-06-18/2025-11-25 clients).
 */
function proseTool(tool: string, finals: readonly InferSample[], notes: string[], defaults: ToolDefaults): ToolInference {
  notes.unshift(`${plural(finals.length, 'sample')} of plain prose: proposed as a string (the text as it is)`);
  return verified(tool, { outputSchema: { type: 'string' } }, finals, 'prose', notes, defaults);
}

/** The entry proven on every sample at every revision, or — when any check fails — no entry, and why. */
function verified(tool: string, entry: InferredEntry, finals: readonly InferSample[], reading: string, notes: string[], defaults: ToolDefaults): ToolInference {
  const failures = verifyEntry(tool, entry, finals, defaults);
  // A name that is itself a glob would be read as one, governing other tools (and a tool it matches could be
  // governed by another such key): render.ts escapes its glob characters.
  if (isGlob(tool)) notes.push(`the name holds glob characters: its key is written ${JSON.stringify(literalKey(tool))}, so it governs this tool alone`);
  const checks = finals.length * VERIFIED_REVISIONS.length;
  if (failures.length > 0) return { tool, samples: finals.length, reading, notes: [...notes, ...failureNotes(failures, checks), 'no entry: one that fails a recorded sample is never proposed'] };
  notes.push(...rootNote(entry.outputSchema, defaults), changeNote(entry.outputSchema, reading));
  return { tool, samples: finals.length, reading, entry, notes };
}

/**
 * The entry of `inference` checked against results of fresh calls (`infer --from DIR --call FILE`): calls made
 * now, not learnt from. One that fails any of them is withdrawn, with the failing calls in the notes; error
 * answers are not checks (they never get structuredContent).
 */
export function checkFresh(inference: ToolInference, fresh: readonly InferSample[], defaults: ToolDefaults): ToolInference {
  const finals = fresh.filter((s) => !isNonFinal(s.result));
  const errors = fresh.length - finals.length;
  const errorNote = errors > 0 ? [`${plural(errors, 'fresh call')} answered with an error: not a check`] : [];
  if (!inference.entry) return finals.length + errors === 0 ? inference : { ...inference, notes: [...inference.notes, ...errorNote] };
  const failures = verifyEntry(inference.tool, inference.entry, finals, defaults);
  const checks = finals.length * VERIFIED_REVISIONS.length;
  if (failures.length === 0) {
    const passed = finals.length > 0 ? [`verified on ${plural(finals.length, 'fresh call')} too`] : [];
    return { ...inference, notes: [...inference.notes, ...passed, ...errorNote] };
  }
  const { entry: _withdrawn, ...rest } = inference;
  return { ...rest, notes: [...inference.notes, ...errorNote, ...failureNotes(failures, checks), 'no entry: it fails a fresh call, so the recordings do not show every shape this tool answers with'] };
}
