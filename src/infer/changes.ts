/**
 * What would change an inferred schema: the constraints the samples imposed, read back from the schema as
 * the answers that would break them — a result without a required key, another value where an enum stands,
 * a fraction where only integers were seen, a string that is not of the format, another type — and the text
 * that the chosen reading could not read. One comment line per tool, so a reviewer knows which samples to
 * record before trusting it.
 */
import { isJsonObject, type Json, type JsonSchema } from '../json.js';

/** Constraints named in the line; the rest are counted. */
const SHOWN = 5;

function pointer(path: string, key: string): string {
  return `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function walk(schema: Json, path: string, out: string[]): void {
  if (!isJsonObject(schema)) return;
  const at = path === '' ? 'the result' : path;
  const type = schema.type;
  if (Array.isArray(schema.enum)) out.push(`${at} other than its ${schema.enum.length} values`);
  else if (type === 'integer') out.push(`a non-integer at ${at}`);
  else if (typeof schema.format === 'string') out.push(`a string at ${at} that is not a ${schema.format}`);
  else if (typeof type === 'string' && type !== 'object' && type !== 'array' && path !== '') out.push(`a value at ${at} that is not a ${type}`);
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const key of required) if (typeof key === 'string') out.push(`an object without ${pointer(path, key)}`);
  if (isJsonObject(schema.properties)) for (const [key, child] of Object.entries(schema.properties)) walk(child, pointer(path, key), out);
  if (schema.items !== undefined) walk(schema.items, `${path}/items`, out);
}

/** The comment line: what kind of answer would make `schema` (read as `reading`) fail, or that none would. */
export function changeNote(schema: JsonSchema, reading: string): string {
  if (reading === 'prose') return 'changes if: never (any text is the string)';
  const out: string[] = [];
  if (reading !== 'native') out.push(`a text that does not read as ${reading.replace(/^native \+ /, '')}`);
  walk(schema, '', out);
  const more = out.length - SHOWN;
  return `changes if: ${out.slice(0, SHOWN).join('; ')}${more > 0 ? `; and ${more} more (infer --explain)` : ''}`;
}
