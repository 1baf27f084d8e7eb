/**
 * The candidates of one result's text, lazily, in the contract's order. `auto` offers json, fenced,
 * embedded, blocks, relaxed, then scalar (when the schema wants one); the caller takes the first that
 * validates. `json` offers the whole text (or one value per block); `yaml` and `regex` their one reading.
 */
import type { Json, JsonSchema } from '../../config/types.js';
import type { CompiledTool } from '../compiled.js';
import { extractBlocks } from './blocks.js';
import { extractEmbedded } from './embedded.js';
import { extractFenced } from './fenced.js';
import { extractJson } from './json.js';
import { extractRegex } from './regex.js';
import { extractRelaxed } from './relaxed.js';
import { extractScalars, wantsScalar } from './scalar.js';
import { extractYaml } from './yaml.js';

/** The strategy that produced a candidate (the `format` label of metrics and logs). */
export type ExtractorName = 'json' | 'fenced' | 'embedded' | 'blocks' | 'relaxed' | 'scalar' | 'yaml' | 'regex';

/** One reading of the text. */
export interface Candidate {
  readonly format: ExtractorName;
  readonly value: Json;
}

function* jsonish(text: string, texts: readonly string[]): Generator<Candidate> {
  const whole = extractJson(text);
  if (whole !== undefined) yield { format: 'json', value: whole };
  const blocks = extractBlocks(texts);
  if (blocks !== undefined) yield { format: 'blocks', value: blocks };
}

function* auto(text: string, texts: readonly string[], schema: JsonSchema): Generator<Candidate> {
  const whole = extractJson(text);
  if (whole !== undefined) yield { format: 'json', value: whole };
  const fenced = extractFenced(text);
  if (fenced !== undefined) yield { format: 'fenced', value: fenced };
  // When the whole text is JSON, it is its own single embedded span: nothing new to offer.
  if (whole === undefined) {
    const embedded = extractEmbedded(text);
    if (embedded !== undefined) yield { format: 'embedded', value: embedded };
  }
  const blocks = extractBlocks(texts);
  if (blocks !== undefined) yield { format: 'blocks', value: blocks };
  if (whole === undefined) {
    const relaxed = extractRelaxed(text);
    if (relaxed !== undefined) yield { format: 'relaxed', value: relaxed };
  }
  if (wantsScalar(schema)) for (const value of extractScalars(text)) yield { format: 'scalar', value };
}

/** Every reading of `texts` (the result's text blocks) that `tool` allows, in preference order. */
export function* candidates(texts: readonly string[], tool: CompiledTool, schema: JsonSchema): Generator<Candidate> {
  if (texts.length === 0) return;
  const text = texts.join('\n');
  switch (tool.extract.format) {
    case 'json':
      yield* jsonish(text, texts);
      return;
    case 'yaml': {
      const value = extractYaml(text);
      if (value !== undefined) yield { format: 'yaml', value };
      return;
    }
    case 'regex': {
      const value = tool.regex ? extractRegex(text, tool.regex, tool.extract.all ?? false) : undefined;
      if (value !== undefined) yield { format: 'regex', value };
      return;
    }
    default:
      yield* auto(text, texts, schema);
  }
}
