/**
 * `$ref`s through the draft-to-2020-12 rewrite (./dialect.ts). A ref is resolved as a validator resolves it:
 * against the base URI of where it is written (the nearest `$id`), to a resource of the schema (the root, or
 * a subschema with an `$id`, such as a schema file the config loader embedded under
 * `https://mcp-retrofit.invalid/schema-files/…`), then its JSON-pointer fragment is walked through that
 * resource as it was and renamed where the rewrite renamed (`definitions` → `$defs` and the entry's `$defs`
 * key, array `items` → `prefixItems`, …). Only the fragment changes; the ref's own URI part stays as written.
 * A ref the rewrite cannot follow exactly (into something it drops, outside the schema) is Unfaithful.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { defsKeys, idKeyword, ignoredBy, LIST, MAP, ONE, splitId, Unfaithful, type Draft } from './dialect-keywords.js';

/** The base of a root without an id of its own: every ref relative to it resolves inside the schema. */
const ROOT_BASE = 'https://root.dialect.mcp-retrofit.invalid/schema.json';

/** The resources of one schema, by absolute id (no fragment); the root's by its base. */
export interface Resources {
  readonly draft: Draft | undefined;
  readonly rootBase: string;
  readonly byId: ReadonlyMap<string, JsonObject>;
}

function resolved(ref: string, base: string, what: string): URL {
  try {
    return new URL(ref, base);
  } catch (cause) {
    throw new Unfaithful(`${what} ${JSON.stringify(ref)} does not resolve against ${base}`, { cause });
  }
}

/** The base URI of `node`, written where `parent` is the base. */
export function baseOf(node: JsonObject, parent: string, draft: Draft | undefined): string {
  const { base } = splitId(node[idKeyword(draft)]);
  if (base === undefined) return parent;
  const url = resolved(base, parent, '$id');
  url.hash = '';
  return url.href;
}

/** The subschemas of `node` the rewrite keeps (a keyword the source draft ignores is dropped with its own). */
export function keptSubschemas(node: JsonObject, draft: Draft | undefined): Json[] {
  const ignored = ignoredBy(draft);
  const out: Json[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (ignored.has(key)) continue;
    if (ONE.includes(key) || (key === 'items' && !Array.isArray(value)) || (key === 'additionalItems' && Array.isArray(node.items))) out.push(value);
    else if ((key === 'items' || LIST.includes(key)) && Array.isArray(value)) out.push(...value);
    else if (MAP.includes(key) && isJsonObject(value)) out.push(...Object.values(value));
    else if (key === 'dependencies' && isJsonObject(value)) out.push(...Object.values(value).filter((d) => !Array.isArray(d)));
  }
  return out;
}

/** Every resource of `root` (iterative, at most `maxDepth` deep: deeper, the rewrite gives up anyway). */
export function resourcesOf(root: JsonObject, draft: Draft | undefined, maxDepth: number): Resources {
  const rootBase = baseOf(root, ROOT_BASE, draft);
  const byId = new Map<string, JsonObject>([[rootBase, root]]);
  const stack: [Json, string, number][] = keptSubschemas(root, draft).map((s) => [s, rootBase, 1]);
  while (stack.length > 0) {
    const [node, parent, depth] = stack.pop()!;
    if (!isJsonObject(node) || depth > maxDepth) continue;
    const base = baseOf(node, parent, draft);
    if (base !== parent) {
      const seen = byId.get(base);
      if (seen !== undefined && seen !== node) throw new Unfaithful(`two schemas have the id ${base}`);
      byId.set(base, node);
    }
    for (const sub of keptSubschemas(node, draft)) stack.push([sub, base, depth + 1]);
  }
  return { draft, rootBase, byId };
}

/** A JSON-pointer token of a URI fragment, as ajv reads it: percent-decoded, then `~1` and `~0`. */
function decodeToken(token: string): string {
  try {
    return decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
  } catch (cause) {
    throw new Unfaithful(`$ref token ${JSON.stringify(token)} is not percent-encoded`, { cause });
  }
}

function encodeToken(name: string): string {
  return encodeURIComponent(name.replace(/~/g, '~0').replace(/\//g, '~1'));
}

/** `$ref`, written where `base` is the base URI, as it reads in the rewritten schema. */
export function refIn202012(ref: string, base: string, resources: Resources): string {
  const target = resolved(ref, base, '$ref');
  target.hash = '';
  const resource = resources.byId.get(target.href);
  if (resource === undefined) throw new Unfaithful(`$ref ${JSON.stringify(ref)} points outside the schema`);
  const hash = ref.indexOf('#');
  const fragment = hash < 0 ? '' : ref.slice(hash + 1);
  // The resource itself, or an anchor (kept as `$anchor`): nothing renamed on the way.
  if (!fragment.startsWith('/')) return ref;
  return `${ref.slice(0, hash)}#/${pointerIn202012(fragment, resource, resources.draft).join('/')}`;
}

/**
 * The tokens of a JSON pointer (`/definitions/a/items/0`) walked from `resource` as it was, renamed as the
 * rewrite renamed. The walk follows the original schema, so a property named `definitions` is no keyword.
 */
function pointerIn202012(fragment: string, resource: JsonObject, draft: Draft | undefined): string[] {
  const ignored = ignoredBy(draft);
  const tokens = fragment.slice(1).split('/');
  const out: string[] = [];
  let node: Json | undefined = resource;
  let at: 'schema' | 'map' | 'list' = 'schema';
  let keys: ReadonlyMap<string, string> | undefined;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const name = decodeToken(token);
    const parent: JsonObject | undefined = isJsonObject(node) ? node : undefined;
    let renamed = token;
    if (at === 'schema') {
      keys = undefined;
      if (ignored.has(name)) throw new Unfaithful(`$ref into ${name}, which ${draft ?? 'its draft'} ignores and the rewrite drops`);
      if (name === 'definitions') {
        renamed = '$defs';
        keys = parent ? defsKeys(parent) : undefined;
        at = 'map';
      } else if (name === 'dependencies') {
        const deps = parent?.dependencies;
        const dep = isJsonObject(deps) && tokens[i + 1] !== undefined ? deps[decodeToken(tokens[i + 1]!)] : undefined;
        renamed = Array.isArray(dep) ? 'dependentRequired' : 'dependentSchemas';
        at = 'map';
      } else if (name === 'items' && Array.isArray(parent?.items)) {
        renamed = 'prefixItems';
        at = 'list';
      } else if (name === 'additionalItems') {
        // Without an array `items` it never applied and is dropped.
        if (!Array.isArray(parent?.items)) throw new Unfaithful('$ref into additionalItems beside no array items');
        renamed = 'items';
      } else if (MAP.includes(name)) at = 'map';
      else if (LIST.includes(name)) at = 'list';
      else if (name !== 'items' && !ONE.includes(name)) throw new Unfaithful(`$ref into ${name}, which holds no subschema the rewrite keeps`);
    } else {
      const key = keys?.get(name);
      if (key !== undefined && key !== name) renamed = encodeToken(key);
      keys = undefined;
      at = 'schema';
    }
    out.push(renamed);
    node = parent ? (Object.hasOwn(parent, name) ? parent[name] : undefined) : Array.isArray(node) ? node[Number(name)] : undefined;
  }
  return out;
}
