/**
 * One `$id`, one schema, across the outputSchemas one upstream serves. An MCP client compiles every tool's
 * outputSchema of a connection in one validator (the v1 and v2 SDK clients share one ajv and look a schema
 * up by its `$id` first), so two tools whose schemas give one `$id` to different schemas make the client
 * validate one tool's results against the other's schema, or refuse the whole list. Only outputSchemas:
 * neither SDK client compiles inputSchemas.
 * Checked on what is served, per kind of client: 2026-07-28 clients get each schema as configured,
 * 2025-06-18/2025-11-25 clients the object-only form (a non-object root wrapped, or dropped), older ones none;
 * a shadowed tool serves none of its configured schema. Client profiles' dialect rewrite maps equal schemas to
 * equal schemas, so it adds no clash.
 */
import { isDeepStrictEqual } from 'node:util';
import { isJsonObject, type Json, type JsonSchema } from '../json.js';
import type { PolicyError } from '../retrofit/policy.js';
import { projectionFor } from '../retrofit/project.js';
import { isShadowed, type ToolConfig, type ToolDefaults } from '../retrofit/settings.js';
import { isObjectRoot, RESULT_KEY, wrapSchema } from '../retrofit/wrap.js';
import type { Segment } from './problems.js';

/** The query parameter an id renamed for its content carries (./served-ids.ts). */
export const CONTENT_PARAM = 'mcp-retrofit-schema';

const RENAMED = new RegExp(`[?&]${CONTENT_PARAM}=[0-9a-f]+$`);

/** An id as it was configured: one renamed for its content (./served-ids.ts) without the parameter added. */
export function configuredId(id: string): string {
  return id.replace(RENAMED, '');
}

/** One `$id` in a served schema: the id as the validator keys it, the schema it names, and where it is. */
interface IdSite {
  readonly id: string;
  readonly schema: Json;
  /** The path in the configured schema (a wrapper's own nodes map to its root). */
  readonly path: readonly Segment[];
}

// json-schema-traverse's keyword tables with `allKeys` (what ajv walks to register the ids of a schema).
const ARRAY_KEYWORDS = new Set(['items', 'allOf', 'anyOf', 'oneOf']);
const PROPS_KEYWORDS = new Set(['$defs', 'definitions', 'properties', 'patternProperties', 'dependencies']);
const SKIP_KEYWORDS = new Set(['default', 'enum', 'const', 'required', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'multipleOf', 'maxLength', 'minLength', 'pattern', 'format', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties']);

/** ajv's normalizeId: no trailing `#` or `#/`. */
function normalize(id: string): string {
  return id.replace(/#\/?$/, '');
}

function resolveId(id: string, base: string): string {
  if (base === '') return normalize(id);
  try {
    return normalize(new URL(id, base).href);
  } catch {
    return normalize(id); // a relative base: ajv resolves against it, we keep the id as written
  }
}

/** Every `$id` ajv registers for `schema` (root and embedded, resolved against their base), as it walks it. */
export function idSites(schema: JsonSchema, toConfigPath: (served: readonly Segment[]) => readonly Segment[] = (p) => p): IdSite[] {
  const sites: IdSite[] = [];
  const visit = (node: Json, path: Segment[], base: string): void => {
    if (!isJsonObject(node)) return;
    let here = base;
    // A `#name` id is an anchor (draft-07), no resource of its own: it names a place in its resource.
    if (typeof node.$id === 'string' && !node.$id.startsWith('#')) {
      here = path.length === 0 ? normalize(node.$id) : resolveId(node.$id, base);
      if (here !== '') sites.push({ id: here, schema: node, path: toConfigPath(path) });
    }
    for (const [key, value] of Object.entries(node)) {
      if (Array.isArray(value)) {
        if (ARRAY_KEYWORDS.has(key)) value.forEach((item, i) => visit(item, [...path, key, i], here));
      } else if (PROPS_KEYWORDS.has(key)) {
        if (isJsonObject(value)) for (const [name, sub] of Object.entries(value)) visit(sub, [...path, key, name], here);
      } else if (!SKIP_KEYWORDS.has(key)) visit(value, [...path, key], here);
    }
  };
  visit(schema, [], '');
  return sites;
}

/** The wrapped form's paths, mapped back into the schema it wraps (`/properties/result/x` → `/x`). */
function unwrapPath(served: readonly Segment[]): readonly Segment[] {
  return served[0] === 'properties' && served[1] === RESULT_KEY ? served.slice(2) : [];
}

type Era = 'modern' | 'object-only';
const REVISIONS: Readonly<Record<Era, readonly string[]>> = { modern: ['2026-07-28'], 'object-only': ['2025-06-18', '2025-11-25'] };

/** The ids of the schema one tool entry serves to one kind of client (none when it serves none), by the engine's own rules. */
function servedSites(tool: ToolConfig, defaults: ToolDefaults, era: Era): IdSite[] {
  const schema = tool.outputSchema;
  if (schema === undefined || isShadowed(tool, defaults)) return [];
  const projection = projectionFor(REVISIONS[era][0]!, isObjectRoot(schema), tool.legacyRoots ?? defaults.legacyRoots);
  if (projection === 'drop') return [];
  return projection === 'wrap' ? idSites(wrapSchema(schema), unwrapPath) : idSites(schema);
}

/** One `$id` given to two different schemas: where (the later), where first, and who would see both. */
export interface IdClash {
  /** The config path of the later `$id`. */
  readonly path: readonly Segment[];
  /** The config path of the first `$id` with that value, and the tool entry it is in. */
  readonly first: readonly Segment[];
  readonly firstKey: string;
  readonly id: string;
  /** The revisions whose clients are served both. */
  readonly revisions: readonly string[];
}

/** The clash as a policy error: its message names the first site, as `where` places it. */
export function clashError(clash: IdClash, where: (path: readonly Segment[]) => string): PolicyError {
  const message = `$id ${JSON.stringify(clash.id)} names a different schema in tool entry ${JSON.stringify(clash.firstKey)} too (${where(clash.first)}): a client compiles every outputSchema of a connection in one validator, so one $id must name one schema (${clash.revisions.join(', ')} clients would see both)`;
  return { path: clash.path, message };
}

/**
 * Every `$id` of one upstream's served outputSchemas that names a schema different from the one an earlier
 * tool entry (in file order) gave it; reported at the later one. Within one schema a repeated id is ajv's
 * compile error already.
 */
export function idClashes(upstream: string, tools: Readonly<Record<string, ToolConfig>>, defaults: ToolDefaults): IdClash[] {
  // By the later site and id: a clash more than one kind of client sees is told once, naming them all.
  const clashes = new Map<string, IdClash & { revisions: string[] }>();
  for (const era of ['modern', 'object-only'] as const) {
    const seen = new Map<string, { readonly key: string; readonly site: IdSite }>();
    for (const [key, tool] of Object.entries(tools)) {
      for (const served of servedSites(tool, defaults, era)) {
        // Ids renamed for a reload's new content are still one configured id that must name one schema.
        const site = { ...served, id: configuredId(served.id) };
        const earlier = seen.get(site.id);
        if (!earlier) {
          seen.set(site.id, { key, site });
          continue;
        }
        if (earlier.key === key || isDeepStrictEqual(earlier.site.schema, site.schema)) continue;
        const path = ['upstreams', upstream, 'tools', key, 'outputSchema', ...site.path, '$id'];
        const first = ['upstreams', upstream, 'tools', earlier.key, 'outputSchema', ...earlier.site.path, '$id'];
        const told = `${JSON.stringify(path)} ${site.id}`;
        const clash = clashes.get(told);
        if (clash) clash.revisions.push(...REVISIONS[era]);
        else clashes.set(told, { path, first, firstKey: earlier.key, id: site.id, revisions: [...REVISIONS[era]] });
      }
    }
  }
  return [...clashes.values()];
}
