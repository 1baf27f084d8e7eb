/**
 * The candidates of one result's text, lazily, in the contract's order. `auto` offers json, fenced,
 * embedded, blocks, relaxed, regex (when a pattern is configured), then scalar (when the schema wants one); the caller takes the first that
 * validates. `json` offers the whole text (or one value per block); `yaml` and `regex` their one reading.
 */
import type { Json, JsonSchema } from '../../json.js';
import type { CompiledTool } from '../compiled.js';
import { extractBlocks } from './blocks.js';
import { extractEmbedded } from './embedded.js';
import { extractFenced } from './fenced.js';
import { extractJson } from './json.js';
import { extractRegex } from './regex.js';
import { extractRelaxed } from './relaxed.js';
import { extractScalars, wantsScalar } from './scalar.js';
import { wantsArray } from '../root-types.js';
import { extractYaml } from './yaml.js';

/** The strategy that produced a candidate (the `format` label of metrics and logs). */
export type ExtractorName = 'json' | 'fenced' | 'embedded' | 'blocks' | 'relaxed' | 'scalar' | 'yaml' | 'regex';

/** One reading of the text. */
export interface Candidate {
  readonly format: ExtractorName;
  readonly value: Json;
}

/**
 * The list readings: several JSON blocks; and, when the schema takes an array, a single non-array JSON
 * block as a one-item list (a Python server returning a list of one sends just that item).
 */
function* lists(texts: readonly string[], whole: Json | undefined, schema: JsonSchema): Generator<Candidate> {
  const blocks = extractBlocks(texts);
  if (blocks !== undefined) yield { format: 'blocks', value: blocks };
  else if (texts.length === 1 && whole !== undefined && !Array.isArray(whole) && wantsArray(schema)) yield { format: 'blocks', value: [whole] };
}

function* jsonish(text: string, texts: readonly string[], schema: JsonSchema): Generator<Candidate> {
  const whole = extractJson(text);
  if (whole !== undefined) yield { format: 'json', value: whole };
  yield* lists(texts, whole, schema);
}

function* auto(text: string, texts: readonly string[], schema: JsonSchema, tool: CompiledTool, notes?: string[]): Generator<Candidate> {
  const whole = extractJson(text);
  if (whole !== undefined) yield { format: 'json', value: whole };
  const fenced = extractFenced(text);
  if (fenced !== undefined) yield { format: 'fenced', value: fenced };
  // When the whole text is JSON, it is its own single embedded span: nothing new to offer.
  if (whole === undefined) {
    const embedded = extractEmbedded(text);
    if (embedded !== undefined) yield { format: 'embedded', value: embedded };
  }
  yield* lists(texts, whole, schema);
  if (whole === undefined) {
    const relaxed = extractRelaxed(text);
    if (relaxed !== undefined) yield { format: 'relaxed', value: relaxed };
  }
  // A pattern under `auto` is the last structured reading, before falling back to the text as a scalar.
  if (tool.regex) {
    const value = extractRegex(text, tool.regex, tool.extract.all ?? false, notes);
    if (value !== undefined) yield { format: 'regex', value };
  }
  if (wantsScalar(schema)) for (const value of extractScalars(text)) yield { format: 'scalar', value };
}

/**
 * Every reading of `texts` (the result's text blocks) that `tool` allows, in preference order.
 * `emptyContent`: the result had no content blocks at all — for an array schema, that is an empty list
 * (how a Python server returns `[]`). `notes` collects why a reading was refused (a regex stopped by its
 * guard), for the outcome's reasons.
 */
export function* candidates(texts: readonly string[], tool: CompiledTool, schema: JsonSchema, emptyContent = false, notes?: string[]): Generator<Candidate> {
  const format = tool.extract.format;
  if (texts.length === 0) {
    if (emptyContent && (format === 'auto' || format === 'json') && wantsArray(schema)) yield { format: 'blocks', value: [] };
    return;
  }
  const text = texts.join('\n');
  switch (format) {
    case 'json':
      yield* jsonish(text, texts, schema);
      return;
    case 'yaml': {
      const value = extractYaml(text, notes);
      if (value !== undefined) yield { format: 'yaml', value };
      return;
    }
    case 'regex': {
      const value = tool.regex ? extractRegex(text, tool.regex, tool.extract.all ?? false, notes) : undefined;
      if (value !== undefined) yield { format: 'regex', value };
      return;
    }
    default:
      yield* auto(text, texts, schema, tool, notes);
  }
}
