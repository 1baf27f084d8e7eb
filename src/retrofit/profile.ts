/**
 * Client profiles (`clients:`): what one kind of client is served of tool definitions and results, on top of
 * what its revision gets. Pure data in, data out, like the rest of the engine:
 * - `outputSchema: strip` — no outputSchema in tools/list, no structuredContent in results (the text stays;
 *   a result that had only structuredContent gets its JSON as a text block);
 * - `schemaDialect: 2020-12` — input and output schemas of older drafts rewritten (./dialect.ts);
 * - `textFallback` — a result with structuredContent also carries its JSON as a text block;
 * - `inputSchemaRoot: object` — a root made of anyOf/oneOf/allOf branches merged into one object schema
 *   (looser, never stricter: the arguments a client sends reach the server as they are).
 * Rewritten schemas are remembered per profile and schema text (bounded), so a tools/list is rewritten once
 * per distinct definition, not per request.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, type Json, type JsonObject, type JsonSchema } from '../json.js';
import { needsRewrite, to202012 } from './dialect.js';
import { Lru } from './native-memory.js';

/** What a profile changes (the matching is the config's: src/config/clients.ts). */
export interface ProfileShape {
  readonly outputSchema: 'keep' | 'strip';
  readonly schemaDialect: 'keep' | '2020-12';
  readonly textFallback: boolean;
  readonly inputSchemaRoot: 'keep' | 'object';
}

/** A profile as the engine applies it: its name (for logs and metrics) and what it changes. */
export interface ClientProfile extends ProfileShape {
  readonly name: string;
}

/** Who a client says it is: initialize's clientInfo (or a 2026-07-28 request's `_meta` one), and its revision. */
export interface ClientIdentity {
  readonly name?: string;
  readonly version?: string;
  readonly revision?: string;
}

export const KEEP_SHAPE: ProfileShape = Object.freeze({ outputSchema: 'keep', schemaDialect: 'keep', textFallback: false, inputSchemaRoot: 'keep' });

/** True when the profile changes nothing (then nothing is done for it). */
export function isNeutral(shape: ProfileShape): boolean {
  return shape.outputSchema === 'keep' && shape.schemaDialect === 'keep' && !shape.textFallback && shape.inputSchemaRoot === 'keep';
}

/** Distinct rewritten schemas remembered per kind of rewrite. */
const CACHE_SIZE = 1000;
/**
 * Longest schema (characters of its JSON) whose rewrite is remembered; a longer one is rewritten on each listing.
 * The schemas are the upstream's to write: remembered whatever their size, an upstream listing a new 1 MiB
 * draft-07 schema each time grew the gateway by ~2.7 MiB a listing, to a thousand of them. Remembered by a digest
 * of the text (as src/retrofit/repair.ts remembers its verdicts), the memory is at most CACHE_SIZE rewrites of at
 * most this size, per kind.
 */
export const CACHED_SCHEMA_CHARS = 64 * 1024;
const dialectCache = new Lru<string, JsonSchema | null>(CACHE_SIZE);
const rootCache = new Lru<string, JsonObject | null>(CACHE_SIZE);

/** The key a schema's rewrite is remembered under, or undefined when it is too long to remember. */
function cacheKey(schema: JsonObject): string | undefined {
  const text = JSON.stringify(schema);
  return text.length > CACHED_SCHEMA_CHARS ? undefined : createHash('sha256').update(text).digest('base64');
}
/** objectRoot by schema object, for schemas that are themselves remembered (held only while they are). */
const rootBySchema = new WeakMap<JsonObject, JsonObject>();

/** The 2020-12 form of a schema that needs one (remembered by its text), or the schema itself. */
function in202012(schema: Json): Json {
  if (!isJsonObject(schema) || !needsRewrite(schema)) return schema;
  const key = cacheKey(schema);
  let out = key === undefined ? undefined : dialectCache.get(key);
  if (out === undefined) {
    out = to202012(schema) ?? null;
    if (key !== undefined) dialectCache.set(key, out);
  }
  // Too deep to rewrite whole: served as it was, rather than half-rewritten.
  return out ?? schema;
}

const COMBINATORS = ['anyOf', 'oneOf', 'allOf'] as const;

/** True when the root has branches to merge. */
function hasBranches(schema: JsonObject): boolean {
  return COMBINATORS.some((k) => Array.isArray(schema[k]));
}

/**
 * One object schema from a root of branches: the properties of every branch (a name several branches define
 * differently takes any of their schemas), required only where every alternative requires it (anyOf, oneOf)
 * or any part does (allOf). Everything else of the root stays; the branches' additionalProperties do not
 * (the merge must not reject what one branch allows).
 */
export function objectRoot(schema: JsonObject): JsonObject {
  if (!hasBranches(schema)) return schema.type === 'object' ? schema : { ...schema, type: 'object' };
  // A schema the dialect rewrite served from its memory is the same object every time: no text key needed.
  const same = rootBySchema.get(schema);
  if (same) return same;
  const key = cacheKey(schema);
  const cached = key === undefined ? undefined : rootCache.get(key);
  if (cached) {
    rootBySchema.set(schema, cached);
    return cached;
  }
  const properties = new Map<string, Json[]>();
  const add = (props: Json | undefined): void => {
    if (!isJsonObject(props)) return;
    for (const [name, s] of Object.entries(props)) {
      const list = properties.get(name) ?? [];
      if (!list.some((x) => JSON.stringify(x) === JSON.stringify(s))) list.push(s);
      properties.set(name, list);
    }
  };
  add(schema.properties);
  let required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(schema)) if (!(COMBINATORS as readonly string[]).includes(k) && k !== 'properties' && k !== 'required') Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  for (const combinator of COMBINATORS) {
    const branches = schema[combinator];
    if (!Array.isArray(branches)) continue;
    const sets: Set<string>[] = [];
    for (const branch of branches) {
      if (!isJsonObject(branch)) continue;
      add(branch.properties);
      sets.push(new Set(Array.isArray(branch.required) ? branch.required.filter((r): r is string => typeof r === 'string') : []));
    }
    if (combinator === 'allOf') for (const s of sets) required = new Set([...required, ...s]);
    else if (sets.length > 0) {
      // Required in every alternative: whichever the client takes, the name is there.
      const common = sets.reduce((a, b) => new Set([...a].filter((x) => b.has(x))));
      required = new Set([...required, ...common]);
    }
  }
  out.type = 'object';
  if (properties.size > 0) {
    const props: JsonObject = {};
    for (const [name, list] of properties) Object.defineProperty(props, name, { value: list.length === 1 ? list[0]! : { anyOf: list }, enumerable: true, writable: true, configurable: true });
    out.properties = props;
  }
  if (required.size > 0) out.required = [...required];
  if (key !== undefined) {
    rootCache.set(key, out);
    rootBySchema.set(schema, out);
  }
  return out;
}

/** One tool definition as the profile serves it (the same object when nothing changes). */
function shapeTool(tool: JsonObject, shape: ProfileShape): JsonObject {
  let out = tool;
  const set = (key: string, value: Json | undefined): void => {
    if (out === tool) out = { ...tool };
    if (value === undefined) delete out[key];
    else out[key] = value;
  };
  if (shape.outputSchema === 'strip' && out.outputSchema !== undefined) set('outputSchema', undefined);
  if (shape.schemaDialect === '2020-12') {
    for (const key of ['inputSchema', 'outputSchema'] as const) {
      const schema = out[key];
      if (schema === undefined) continue;
      const rewritten = in202012(schema);
      if (rewritten !== schema) set(key, rewritten);
    }
  }
  if (shape.inputSchemaRoot === 'object' && isJsonObject(out.inputSchema)) {
    const merged = objectRoot(out.inputSchema);
    if (merged !== out.inputSchema) set('inputSchema', merged);
  }
  return out;
}

/** A tools/list result as the profile serves it (the same object when nothing changes). */
export function shapeToolsList(result: JsonObject, shape: ProfileShape): JsonObject {
  if (isNeutral(shape) || !Array.isArray(result.tools)) return result;
  let changed = false;
  const tools = result.tools.map((tool) => {
    if (!isJsonObject(tool)) return tool;
    const out = shapeTool(tool, shape);
    if (out !== tool) changed = true;
    return out;
  });
  return changed ? { ...result, tools } : result;
}

/** True when some text block of `content` holds `value` as JSON. */
function hasJsonText(content: readonly Json[], value: Json, json: string): boolean {
  for (const block of content) {
    if (!isJsonObject(block) || block.type !== 'text' || typeof block.text !== 'string') continue;
    const text = block.text.trim();
    if (text === json) return true;
    if (text.length !== 0 && (text[0] === '{' || text[0] === '[')) {
      try {
        if (JSON.stringify(JSON.parse(text)) === JSON.stringify(value)) return true;
      } catch {
        // prose that starts like JSON
      }
    }
  }
  return false;
}

/** A tools/call result as the profile serves it (the same object when nothing changes). */
export function shapeToolResult(result: JsonObject, shape: ProfileShape): JsonObject {
  const structured = result.structuredContent;
  if (structured === undefined || (shape.outputSchema !== 'strip' && !shape.textFallback)) return result;
  const content = Array.isArray(result.content) ? result.content : [];
  const json = JSON.stringify(structured);
  // Strip keeps what the text says, adding the JSON only where there is no text at all; textFallback wants the
  // JSON itself among the blocks.
  const hasText = content.some((b) => isJsonObject(b) && b.type === 'text');
  const addText = shape.textFallback ? !hasJsonText(content, structured, json) : !hasText;
  const out: JsonObject = { ...result, ...(addText && { content: [...content, { type: 'text', text: json }] }) };
  if (shape.outputSchema === 'strip') delete out.structuredContent;
  return out;
}
