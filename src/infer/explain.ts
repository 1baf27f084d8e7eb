/**
 * `infer --explain TOOL`: why each keyword of a tool's inferred schema was chosen, position by position, from
 * the same statistics the schema was written from (stats.ts, schema.ts): the types seen and how often, why a
 * key is or is not required, why a format or an enum was or was not granted.
 */
import type { Json } from '../json.js';
import { ENUM_MIN_REPEATS, ENUM_MIN_SAMPLES, FORMAT_MIN_DISTINCT, formatOf, matchedFormat, MAX_DEPTH } from './schema.js';
import { ENUM_MAX_VALUES, FORMATS, statsOf, type Stats } from './stats.js';
import type { ToolInference } from './tool.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

function typesSeen(s: Stats): string {
  const parts: string[] = [];
  if (s.objects) parts.push(plural(s.objects, 'object'));
  if (s.arrays) parts.push(plural(s.arrays, 'array'));
  if (s.strings) parts.push(plural(s.strings, 'string'));
  if (s.integers) parts.push(plural(s.integers, 'integer'));
  if (s.fractions) parts.push(`${s.fractions} non-integer number${s.fractions === 1 ? '' : 's'}`);
  if (s.booleans) parts.push(plural(s.booleans, 'boolean'));
  if (s.nulls) parts.push(plural(s.nulls, 'null'));
  return parts.join(', ') || 'nothing';
}

function walk(s: Stats, pointer: string, out: string[], depth: number): void {
  const at = pointer === '' ? '/' : pointer;
  if (s.deep > 0 || depth > MAX_DEPTH) {
    out.push(`${at}: nested deeper than ${MAX_DEPTH} levels: anything accepted`);
    return;
  }
  out.push(`${at}: ${typesSeen(s)}`);
  if (s.integers > 0 && s.fractions > 0) out.push(`${at}: number, not integer: ${plural(s.fractions, 'value')} had a fraction`);
  else if (s.integers > 0) out.push(`${at}: integer: every number seen (${s.integers}) was one`);
  if (s.strings > 0) {
    const matched = matchedFormat(s);
    if (matched === undefined) out.push(`${at}: no format: no one of ${FORMATS.join(', ')} matches every string`);
    else if (formatOf(s) === undefined) out.push(`${at}: no format: every string seen matches ${matched}, but a format needs ${FORMAT_MIN_DISTINCT} different ones`);
    else out.push(`${at}: format ${matched}: every string seen (${s.strings}) matches it`);
    if (s.values === undefined) out.push(`${at}: no enum: more than ${ENUM_MAX_VALUES} distinct strings`);
    else if (s.strings < ENUM_MIN_SAMPLES) out.push(`${at}: no enum: ${s.strings} strings seen, an enum needs ${ENUM_MIN_SAMPLES}`);
    else if ([...s.values.values()].some((n) => n < ENUM_MIN_REPEATS)) out.push(`${at}: no enum: a value was seen fewer than ${ENUM_MIN_REPEATS} times`);
    else out.push(`${at}: enum of ${s.values.size}: ${s.strings} strings, each value seen at least ${ENUM_MIN_REPEATS} times`);
  }
  for (const [key, { present, stats }] of s.properties) {
    const child = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    out.push(present === s.objects ? `${child}: required: present in all ${s.objects} objects` : `${child}: optional: present in ${present} of ${s.objects} objects`);
    walk(stats, child, out, depth + 1);
  }
  if (s.items && s.items.count > 0) walk(s.items, `${pointer}/items`, out, depth + 1);
  else if (s.arrays > 0) out.push(`${at}: no items schema: every array was empty`);
}

/** The explanation of one tool's inference, as lines. */
export function explainTool(inference: ToolInference): string[] {
  const out = [`${inference.tool}: ${plural(inference.samples, 'sample')}${inference.reading ? `, read as ${inference.reading}` : ''}`, ...inference.notes.map((n) => `  ${n}`)];
  if (!inference.entry) {
    out.push('no entry: nothing to explain');
    return out;
  }
  if (!inference.values) {
    out.push('the schema is fixed by its kind (see the notes above), not by the values');
    return out;
  }
  walk(statsOf(inference.values as Json[]), '', out, 0);
  return out;
}
