/**
 * The readings `infer` tries on a tool's text samples, as data: in the order `auto` tries them (json,
 * fenced, embedded, blocks, relaxed), then the formats `auto` does not try (yaml). Each entry names the
 * engine's extractor it uses and the `extract` settings that make the gateway take that same reading, so a
 * new format of src/retrofit/extract is one line here, e.g.
 *   { name: 'table', auto: false, extract: { format: 'table' }, read: (texts) => extractTable(joined(texts)) },
 */
import { isJsonObject, type Json } from '../json.js';
import type { ExtractConfig } from '../config/types.js';
import { extractBlocks } from '../retrofit/extract/blocks.js';
import { extractEmbedded } from '../retrofit/extract/embedded.js';
import { extractFenced } from '../retrofit/extract/fenced.js';
import { extractJson } from '../retrofit/extract/json.js';
import { extractRelaxed } from '../retrofit/extract/relaxed.js';
import { readingLocator } from '../retrofit/locator.js';
import { extractYaml } from '../retrofit/extract/yaml.js';

/** One way of reading a result's text blocks. */
export interface Reader {
  /** The strategy's name, as the engine labels it in metrics and logs. */
  readonly name: string;
  /** True when `format: auto` tries this reading (it is then also part of the mixed `auto` reading). */
  readonly auto: boolean;
  /** The extract settings under which the gateway takes this reading. */
  readonly extract: ExtractConfig;
  /** This reading of the texts (one per text block), or undefined when it finds nothing. */
  read(texts: readonly string[]): Json | undefined;
}

const AUTO: ExtractConfig = { format: 'auto' };
/** The engine reads several blocks as their texts joined by newlines. */
const joined = (texts: readonly string[]): string => texts.join('\n');

/**
 * A YAML reading counts when it is a list or has at least two keys, none of them JSON punctuation: one
 * `Word: rest of a sentence` line is prose that happens to hold a colon, not a report.
 */
function yamlReport(text: string): Json | undefined {
  // No schema yet: nothing is wanted anywhere, so each scalar is its YAML value where that prints back as its text.
  const read = extractYaml(text, readingLocator(true, { format: 'yaml' }))?.value;
  const value = read === undefined ? undefined : longIntegersAsText(read);
  if (Array.isArray(value)) return value;
  // A report's keys are words: one made of JSON punctuation is JSON text split at its colons, not a report.
  if (isJsonObject(value) && Object.keys(value).some((k) => /["{}[\]]/.test(k))) return undefined;
  return isJsonObject(value) && Object.keys(value).length >= 2 ? value : undefined;
}

/** Integers this long (16 digits) in a report are ids, not quantities: inferred as strings. */
const LONG_INTEGER = 1e15;

/**
 * A report's long integers as their text: a string schema then takes a report's scalar as written (the yaml
 * reading serves a string position the text itself), where a number would lose digits past 2^53 and an id of
 * 16 digits is no quantity. JSON text is read as JSON says (past 2^53, the engine keeps the digits as a string).
 */
function longIntegersAsText(value: Json, depth = 0): Json {
  if (typeof value === 'number') return Number.isInteger(value) && Math.abs(value) >= LONG_INTEGER ? String(value) : value;
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => longIntegersAsText(v, depth + 1));
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: longIntegersAsText(v, depth + 1), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * One JSON value per text block, as a list; a single block holding one non-list value is a list of one, as
 * the engine reads it for an array schema (a Python server returning a one-item list sends just the item).
 */
function blocks(texts: readonly string[]): Json | undefined {
  if (texts.length !== 1) return extractBlocks(texts);
  const one = extractJson(texts[0]!);
  return one === undefined || Array.isArray(one) ? one : [one];
}

/** Every reading, in the order infer tries them. */
export const READERS: readonly Reader[] = [
  { name: 'json', auto: true, extract: { format: 'json' }, read: (texts) => extractJson(joined(texts)) },
  { name: 'fenced', auto: true, extract: AUTO, read: (texts) => extractFenced(joined(texts)) },
  { name: 'embedded', auto: true, extract: AUTO, read: (texts) => extractEmbedded(joined(texts)) },
  { name: 'blocks', auto: true, extract: { format: 'json' }, read: blocks },
  { name: 'relaxed', auto: true, extract: AUTO, read: (texts) => extractRelaxed(joined(texts)) },
  { name: 'yaml', auto: false, extract: { format: 'yaml' }, read: (texts) => yamlReport(joined(texts)) },
];

/** `auto` over samples of different shapes: each sample read by the first `auto` reading that finds something. */
export const MIXED: Reader = {
  name: 'auto',
  auto: true,
  extract: AUTO,
  read(texts) {
    for (const reader of READERS) {
      if (!reader.auto) continue;
      const value = reader.read(texts);
      if (value !== undefined) return value;
    }
    return undefined;
  },
};

/** The readings in trial order: the single ones, with the mixed `auto` reading after the last `auto` one. */
export function trialOrder(readers: readonly Reader[] = READERS): Reader[] {
  const last = readers.findLastIndex((r) => r.auto);
  return [...readers.slice(0, last + 1), MIXED, ...readers.slice(last + 1)];
}
