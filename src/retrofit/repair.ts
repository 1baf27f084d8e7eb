/**
 * Tool-definition repair: strict clients (both TypeScript SDKs) reject a whole tools/list when one tool's
 * inputSchema root is not `type: "object"` or its outputSchema is unusable, so one drifted tool would make
 * every tool of the server unusable. These fix the definition and say what they did.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { Lru } from './native-memory.js';
import { schemaCycles } from './schema-cycles.js';
import { compileSchema } from './validate.js';

/**
 * Property schemas that are not objects. Booleans (`{"a": true}`) are valid JSON Schema, but the v1 SDK
 * requires every `properties` value to be an object and rejects the whole list otherwise: `true` → `{}`,
 * `false` → `{"not": {}}`, which mean the same. Anything else there (`null`, a number) is no schema at all;
 * it becomes `{}`, the reading that constrains nothing.
 */
export function objectifyProperties(schema: JsonObject): JsonObject | undefined {
  const { properties } = schema;
  if (!isJsonObject(properties) || Object.values(properties).every(isJsonObject)) return undefined;
  const fixed: JsonObject = {};
  for (const [name, value] of Object.entries(properties)) fixed[name] = isJsonObject(value) ? value : value === false ? { not: {} } : {};
  return { ...schema, properties: fixed };
}

/**
 * The repaired inputSchema and what was done, or undefined when it needs nothing. Strict clients check the
 * root's `type` ("object"), `properties` (an object of object schemas) and `required` (a list of names); each
 * repair keeps every other keyword and never makes the schema stricter.
 */
export function repairInputSchema(schema: Json | undefined): { schema: JsonObject; detail: string } | undefined {
  if (!isJsonObject(schema)) {
    return { schema: { type: 'object' }, detail: schema === undefined ? 'missing inputSchema replaced by {type: "object"}' : 'non-object inputSchema replaced by {type: "object"}' };
  }
  const details: string[] = [];
  let out = schema;
  const { type, properties, required } = schema;
  if (type !== 'object') {
    // Keep every other keyword ($schema, properties, $ref, ...): only the root type was wrong.
    details.push(type === undefined ? 'root type "object" added' : `root type ${JSON.stringify(type)} replaced by "object"`);
    out = { ...out, type: 'object' };
  }
  if (properties !== undefined && !isJsonObject(properties)) {
    details.push('non-object properties removed');
    const { properties: _removed, ...rest } = out;
    out = rest;
  }
  const objectified = objectifyProperties(out);
  if (objectified) {
    details.push('non-object property schemas replaced by objects');
    out = objectified;
  }
  if (required !== undefined && !(Array.isArray(required) && required.every((name) => typeof name === 'string'))) {
    // Only names can be required: keep those, drop the rest (a lone string names no list).
    const names = Array.isArray(required) ? required.filter((name) => typeof name === 'string') : [];
    details.push('required reduced to its names');
    const { required: _removed, ...rest } = out;
    out = names.length > 0 ? { ...rest, required: names } : rest;
  }
  return details.length === 0 ? undefined : { schema: out, detail: details.join('; ') };
}

// Upstreams list the same schemas on every tools/list: compile each distinct one once, remembering only the
// verdict (keyed by a digest of its text: schemas can be large).
const NATIVE_CACHE_SIZE = 4096;
const nativeChecks = new Lru<string, string | null>(NATIVE_CACHE_SIZE);

/**
 * How many schemas the gateway has not seen one tools/list answer may have compiled. Compiling is ajv's code
 * generation, ~0.5 ms a schema on the event loop: an upstream listing thousands of new schemas would otherwise
 * stall every session for seconds (a count, not a time, so a loaded machine lists the same schemas as an idle
 * one). Past it, a schema not yet checked is not served (it is checked on a later list), since an unchecked
 * one might make strict clients reject the whole list.
 */
export const COMPILES_PER_LIST = 128;

/**
 * The JSON text of new schemas one tools/list answer may have compiled, and the largest one compiled at all.
 * Compiling costs with the schema's size, not its count: one schema of 4,000 properties, each with a pattern
 * and a format (330 KB), took ajv 18 s, and 700 of them (57 KB) 0.5–0.9 s. A larger schema is never served;
 * one past the list's bytes waits for a later list, as past the count.
 */
export const COMPILE_BYTES_PER_LIST = 96 * 1024;
export const MAX_DECLARED_SCHEMA_BYTES = 32 * 1024;

/** The compilations one tools/list may still do (see COMPILES_PER_LIST and COMPILE_BYTES_PER_LIST). */
export interface CompileBudget {
  left: number;
  bytes: number;
}

export const compileBudget = (): CompileBudget => ({ left: COMPILES_PER_LIST, bytes: COMPILE_BYTES_PER_LIST });

/**
 * Why an upstream-declared outputSchema is unusable (does not compile, unknown dialect, recurses without end,
 * not checked in time), or undefined.
 */
export function outputSchemaProblem(schema: Json, budget?: CompileBudget): string | undefined {
  if (!isJsonObject(schema) && typeof schema !== 'boolean') return 'outputSchema is not a schema';
  const text = JSON.stringify(schema);
  if (text.length > MAX_DECLARED_SCHEMA_BYTES) return `outputSchema is ${text.length} characters of JSON, more than the ${MAX_DECLARED_SCHEMA_BYTES} the gateway compiles`;
  const key = createHash('sha256').update(text).digest('base64');
  let problem = nativeChecks.get(key);
  if (problem === undefined) {
    if (budget) {
      if (budget.left <= 0) return `not checked yet: this list had more than ${COMPILES_PER_LIST} schemas new to the gateway`;
      if (budget.bytes < text.length) return `not checked yet: this list had more than ${COMPILE_BYTES_PER_LIST} characters of schemas new to the gateway`;
      budget.left--;
      budget.bytes -= text.length;
    }
    // One that recurses without end may compile, and then overflows every validator's stack, a client's too.
    const cycle = schemaCycles(schema)[0];
    if (cycle !== undefined) problem = `outputSchema ${cycle.cycle[0] ?? '#'}: ${cycle.message}`;
    else {
      const compiled = compileSchema(schema, false, 'verdict');
      problem = compiled.ok ? null : compiled.message;
    }
    nativeChecks.set(key, problem);
  }
  return problem ?? undefined;
}
