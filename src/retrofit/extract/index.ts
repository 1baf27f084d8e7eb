/**
 * The candidates of one result's text, lazily, in the contract's order. `auto` offers json, fenced,
 * embedded, blocks, relaxed, then (when the schema wants an array where the reading lands) pipe tables and
 * Markdown lists, the pattern (when one is configured), then scalar (when the schema wants one); the caller
 * takes the first that validates. `json` offers the whole text (or one value per block); `yaml`, `regex`,
 * `table`, `csv` and `list` their own readings. A candidate's `notes` explain it when it fails (numbers kept
 * as text because a JSON number cannot hold them).
 */
import type { Json, JsonSchema } from '../../json.js';
import type { CompiledTool } from '../compiled.js';
import { readingLocator, readingRootTypes, readingWantsArray } from '../locator.js';
import { admitsScalar } from '../root-types.js';
import type { Candidate, ExtractorName } from './candidate.js';
import { extractBlocks } from './blocks.js';
import { extractEmbedded } from './embedded.js';
import { inexactNote } from './exact-json.js';
import { extractFenced } from './fenced.js';
import { extractJson } from './json.js';
import { csvCandidates, listCandidates, tableCandidates } from './prose.js';
import { extractRegex } from './regex.js';
import { extractRelaxed } from './relaxed.js';
import { extractScalars } from './scalar.js';
import { extractYaml } from './yaml.js';

export type { Candidate, ExtractorName } from './candidate.js';

/** Where a JSON reading's note comes from: `text`'s inexact-number note, computed once, when first read. */
type Note = () => readonly string[] | undefined;

/** Only a failed reading's reasons read the note, so a text whose first reading validates never pays its pass. */
function noteOf(text: string): Note {
  let computed = false;
  let notes: readonly string[] | undefined;
  return () => {
    if (!computed) {
      computed = true;
      const note = inexactNote(text);
      notes = note === undefined ? undefined : [note];
    }
    return notes;
  };
}

/**
 * A JSON reading whose `notes` are worked out only when read. A class, not an object literal with a getter:
 * V8 builds such literals on its slow path, a visible cost when every call's first reading is one of these.
 */
class NotedCandidate implements Candidate {
  readonly format: ExtractorName;
  readonly value: Json;
  readonly #note: Note;

  constructor(format: ExtractorName, value: Json, note: Note) {
    this.format = format;
    this.value = value;
    this.#note = note;
  }

  get notes(): readonly string[] | undefined {
    return this.#note();
  }
}

function withNote(format: ExtractorName, value: Json, note: Note): Candidate {
  return new NotedCandidate(format, value, note);
}

/**
 * The list readings: several JSON blocks; and, when the schema takes an array, a single non-array JSON
 * block as a one-item list (a Python server returning a list of one sends just that item).
 */
function* lists(texts: readonly string[], whole: Json | undefined, types: ReadonlySet<string>, note: Note): Generator<Candidate> {
  const blocks = extractBlocks(texts);
  if (blocks !== undefined) yield withNote('blocks', blocks, note);
  else if (texts.length === 1 && whole !== undefined && !Array.isArray(whole) && types.has('array')) yield withNote('blocks', [whole], note);
}

function* jsonish(text: string, texts: readonly string[], types: ReadonlySet<string>): Generator<Candidate> {
  const note = noteOf(text);
  const whole = extractJson(text);
  if (whole !== undefined) yield withNote('json', whole, note);
  yield* lists(texts, whole, types, note);
}

function* auto(text: string, texts: readonly string[], schema: JsonSchema, tool: CompiledTool, notes?: string[]): Generator<Candidate> {
  // Where the reading lands (under `wrap`'s key, when set): what the scalar and list readings are offered for.
  const types = readingRootTypes(schema, tool.extract);
  const note = noteOf(text);
  const whole = extractJson(text);
  if (whole !== undefined) yield withNote('json', whole, note);
  const fenced = extractFenced(text);
  if (fenced !== undefined) yield withNote('fenced', fenced, note);
  // When the whole text is JSON, it is its own single embedded span: nothing new to offer.
  if (whole === undefined) {
    const embedded = extractEmbedded(text);
    if (embedded !== undefined) yield withNote('embedded', embedded, note);
  }
  yield* lists(texts, whole, types, note);
  // A Python SDK server sends a list of strings as one text block per string, not quoted as JSON: the
  // blocks' texts, as they are (after the JSON reading of the blocks, which reads `42` as a number).
  if (texts.length > 1 && types.has('array')) yield withNote('blocks', [...texts], note);
  if (whole === undefined) {
    const relaxed = extractRelaxed(text);
    if (relaxed !== undefined) yield withNote('relaxed', relaxed, note);
  }
  if (readingWantsArray(schema, tool.extract)) {
    yield* tableCandidates(text, notes);
    yield* listCandidates(text, undefined, notes);
  }
  // A pattern under `auto` is the last structured reading, before falling back to the text as a scalar.
  if (tool.pattern) {
    const value = extractRegex(text, tool.pattern, tool.extract.all ?? false, notes);
    if (value !== undefined) yield { format: 'regex', value };
  }
  if (admitsScalar(types)) yield* scalars(text);
}

function* scalars(text: string): Generator<Candidate> {
  const { values, inexact } = extractScalars(text);
  const note = inexact ? inexactNote(text.trim()) : undefined;
  for (const value of values) yield note === undefined ? { format: 'scalar', value } : { format: 'scalar', value, notes: [note] };
}

/**
 * Every reading of `texts` (the result's text blocks) that `tool` allows, in preference order.
 * `emptyContent`: the result had no content blocks at all — for an array schema, that is an empty list
 * (how a Python server returns `[]`). `notes` collects why a reading was refused (a text over a bound, a
 * table that cannot be read), for the outcome's reasons.
 */
export function* candidates(texts: readonly string[], tool: CompiledTool, schema: JsonSchema, emptyContent = false, notes?: string[]): Generator<Candidate> {
  const format = tool.extract.format;
  if (texts.length === 0) {
    if (emptyContent && (format === 'auto' || format === 'json') && readingRootTypes(schema, tool.extract).has('array')) yield { format: 'blocks', value: [] };
    return;
  }
  const text = texts.join('\n');
  switch (format) {
    case 'json':
      yield* jsonish(text, texts, readingRootTypes(schema, tool.extract));
      return;
    case 'yaml': {
      const reading = extractYaml(text, readingLocator(schema, tool.extract), notes);
      if (reading !== undefined) yield { format: 'yaml', value: reading.value, ...(reading.notes.length > 0 && { notes: reading.notes }) };
      return;
    }
    case 'regex': {
      const value = tool.pattern ? extractRegex(text, tool.pattern, tool.extract.all ?? false, notes) : undefined;
      if (value !== undefined) yield { format: 'regex', value };
      return;
    }
    case 'table':
      yield* tableCandidates(text, notes);
      return;
    case 'csv':
      yield* csvCandidates(text, tool.extract.delimiter, notes);
      return;
    case 'list':
      yield* listCandidates(text, tool.pattern, notes);
      return;
    default:
      yield* auto(text, texts, schema, tool, notes);
  }
}
