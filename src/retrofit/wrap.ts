/**
 * Wrapping a non-object schema for 2025-06-18 / 2025-11-25 clients, the way the v2 SDK server does:
 * `{type:"object", properties:{result:S}, required:["result"]}`. `$schema` is hoisted to the new root and
 * local JSON-pointer `$ref`s are re-rooted under `#/properties/result` so they still resolve.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, type Json, type JsonObject, type JsonSchema } from '../json.js';

/** The property name a wrapped value lives under (the SDK's convention). */
export const RESULT_KEY = 'result';
const PREFIX = `#/properties/${RESULT_KEY}`;

/** Keywords whose value is data, not schema: never rewritten. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
/** Keywords whose value maps names to schemas: the keys are names, the values schemas. */
// draft-07 `dependencies` maps names to schemas or to lists of names (strings, which rewriting leaves alone).
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);
/** Reference keywords holding a URI reference that may be a local JSON pointer. */
const REF_KEYWORDS = new Set(['$ref', '$recursiveRef']);

/** True when the schema's root already satisfies object-only clients (`type` exactly `"object"`). */
export function isObjectRoot(schema: JsonSchema): boolean {
  return isJsonObject(schema) && schema.type === 'object';
}

/** An `$id` that is not a bare fragment (draft-07 `"#name"` ids are anchors) starts a new resource. */
function ownsResource(node: JsonObject): boolean {
  return typeof node.$id === 'string' && !node.$id.startsWith('#');
}

/**
 * `#`, `""` (both the document's root) and `#/...` refs move under the wrapper; `#anchor`, relative and
 * absolute URIs stay.
 */
function rewriteRef(ref: string): string {
  if (ref === '#' || ref === '') return PREFIX;
  if (ref.startsWith('#/')) return PREFIX + ref.slice(1);
  return ref;
}

function rewriteSchema(node: Json, isRoot: boolean): Json {
  if (Array.isArray(node)) return node.map((item) => rewriteSchema(item, false));
  if (!isJsonObject(node)) return node;
  // A subschema with its own $id is a separate resource: its `#...` refs resolve against it, not us.
  if (!isRoot && ownsResource(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (REF_KEYWORDS.has(key) && typeof value === 'string') out[key] = rewriteRef(value);
    else if (DATA_KEYWORDS.has(key)) out[key] = value;
    else if (NAMED_SCHEMAS.has(key) && isJsonObject(value)) {
      const named: JsonObject = {};
      for (const [name, schema] of Object.entries(value)) named[name] = rewriteSchema(schema, false);
      out[key] = named;
    } else out[key] = rewriteSchema(value, false);
  }
  return out;
}

/**
 * A boolean schema as the object schema that means the same (`true` → `{}`, `false` → `{"not": {}}`); an
 * object schema as it is. Clients take only objects where a tool's schema goes: the v1 SDK requires every
 * `properties` value to be one, and the v2 SDK's Tool type wants an object `outputSchema` at every revision.
 */
export function asObjectSchema(schema: JsonSchema): JsonObject {
  if (schema === true) return {};
  if (schema === false) return { not: {} };
  return schema;
}

/** The wrapped form of a schema (a boolean one as its object equivalent, see asObjectSchema). */
export function wrapSchema(schema: JsonSchema): JsonObject {
  let inner: JsonObject;
  let hoisted: Json | undefined;
  if (typeof schema === 'boolean') inner = asObjectSchema(schema);
  else {
    const { $schema, ...rest } = schema;
    hoisted = $schema;
    // A root with its own $id stays a resource of its own, so its local refs need no rewriting.
    if (ownsResource(rest)) inner = rest;
    // 2019-09 `$recursiveRef: "#"` cannot be re-rooted (it must stay "#"); make the schema a resource of
    // its own instead, with an id derived from its content so equal schemas share it and others never clash.
    else if (JSON.stringify(rest).includes('"$recursiveRef"')) inner = { $id: syntheticId(rest), ...rest };
    else inner = rewriteSchema(rest, true) as JsonObject;
  }
  return {
    ...(hoisted !== undefined && { $schema: hoisted }),
    type: 'object',
    properties: { [RESULT_KEY]: inner },
    required: [RESULT_KEY],
  };
}

function syntheticId(schema: JsonObject): string {
  const digest = createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 32);
  return `https://mcp-retrofit.invalid/schemas/${digest}.json`;
}

const WRAPPER_KEYS = new Set(['$schema', 'type', 'properties', 'required', 'additionalProperties']);

/**
 * True when an object-rooted schema is the wrapper itself: `{type:"object", properties:{result:S},
 * required:["result"]}` around a non-object S, the shape modern SDK servers (and FastMCP) give non-object
 * roots for object-only clients. Under `legacyRoots: drop` such a schema is a non-object root in disguise.
 */
export function isWrapperSchema(schema: JsonSchema): boolean {
  if (!isJsonObject(schema) || schema.type !== 'object' || !Object.keys(schema).every((k) => WRAPPER_KEYS.has(k))) return false;
  const { properties, required } = schema;
  if (!isJsonObject(properties) || Object.keys(properties).length !== 1 || !(RESULT_KEY in properties)) return false;
  if (!Array.isArray(required) || required.length !== 1 || required[0] !== RESULT_KEY) return false;
  const inner = properties[RESULT_KEY];
  return (isJsonObject(inner) || typeof inner === 'boolean') && !isObjectRoot(inner);
}

/** The wrapped form of a value. */
export function wrapValue(value: Json): JsonObject {
  return { [RESULT_KEY]: value };
}
