/**
 * Tool-definition repair: strict clients (both TypeScript SDKs) reject a whole tools/list when one tool's
 * inputSchema root is not `type: "object"` or its outputSchema is unusable, so one drifted tool would make
 * every tool of the server unusable. These fix the definition and say what they did.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { Lru } from './native-memory.js';
import { compileSchema } from './validate.js';

/**
 * Boolean property schemas (`{"a": true}`) are valid JSON Schema, but the v1 SDK requires every `properties`
 * value to be an object and rejects the whole list otherwise: `true` → `{}`, `false` → `{"not": {}}`.
 */
export function objectifyProperties(schema: JsonObject): JsonObject | undefined {
  const { properties } = schema;
  if (!isJsonObject(properties) || !Object.values(properties).some((v) => typeof v === 'boolean')) return undefined;
  const fixed: JsonObject = {};
  for (const [name, value] of Object.entries(properties)) fixed[name] = value === true ? {} : value === false ? { not: {} } : value;
  return { ...schema, properties: fixed };
}

/** The repaired inputSchema and what was done, or undefined when it needs nothing. */
export function repairInputSchema(schema: Json | undefined): { schema: JsonObject; detail: string } | undefined {
  if (!isJsonObject(schema)) {
    return { schema: { type: 'object' }, detail: schema === undefined ? 'missing inputSchema replaced by {type: "object"}' : 'non-object inputSchema replaced by {type: "object"}' };
  }
  const details: string[] = [];
  let out = schema;
  const { type } = schema;
  if (type !== 'object') {
    // Keep every other keyword ($schema, properties, $ref, ...): only the root type was wrong.
    details.push(type === undefined ? 'root type "object" added' : `root type ${JSON.stringify(type)} replaced by "object"`);
    out = { ...out, type: 'object' };
  }
  const objectified = objectifyProperties(out);
  if (objectified) {
    details.push('boolean property schemas replaced by objects');
    out = objectified;
  }
  return details.length === 0 ? undefined : { schema: out, detail: details.join('; ') };
}

// Upstreams list the same schemas on every tools/list: compile each distinct one once.
const NATIVE_CACHE_SIZE = 500;
const nativeChecks = new Lru<string, string | null>(NATIVE_CACHE_SIZE);

/** Why an upstream-declared outputSchema is unusable (does not compile, unknown dialect), or undefined. */
export function outputSchemaProblem(schema: Json): string | undefined {
  if (!isJsonObject(schema) && typeof schema !== 'boolean') return 'outputSchema is not a schema';
  const key = JSON.stringify(schema);
  let problem = nativeChecks.get(key);
  if (problem === undefined) {
    const compiled = compileSchema(schema);
    problem = compiled.ok ? null : compiled.message;
    nativeChecks.set(key, problem);
  }
  return problem ?? undefined;
}
