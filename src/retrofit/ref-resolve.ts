/**
 * Resolving a `$ref` of a configured schema the way a validator does, for the schema-guided steps (coercion,
 * the typing of text scalars, root types): against the base URI of the resource it is written in, to an
 * embedded resource's `$id` (the config loader bundles referenced files so: src/config/bundle.ts), a JSON
 * pointer inside that resource, or an `$anchor` (draft-07: an `$id` of the form `#name`). Nothing is fetched:
 * a ref to no resource of the document resolves to nothing. Each root document is indexed once (its resources
 * and anchors, and each subschema's base); the index is kept as long as the schema is (a WeakMap), and it is
 * bounded in depth like every walk over a configured schema.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { getPointer, resolveLocalRef } from './pointer.js';
import { LIST, MAP, ONE } from './subschemas.js';

/** The base of a document without an `$id` (relative refs resolve against it, to nothing of the document). */
const DOCUMENT = 'https://mcp-retrofit.invalid/document.json';
const MAX_DEPTH = 64;

interface RefIndex {
  readonly rootBase: string;
  /** The base URI each subschema is in (its resource's `$id`, resolved). */
  readonly bases: WeakMap<JsonObject, string>;
  /** Resources by their `$id`, resolved and without fragment. */
  readonly resources: Map<string, JsonObject>;
  /** `<resource>#<anchor>` → the subschema that declares it. */
  readonly anchors: Map<string, JsonObject>;
}

const indexes = new WeakMap<JsonObject, RefIndex>();

function resolveUri(ref: string, base: string): URL | undefined {
  try {
    return new URL(ref, base);
  } catch {
    return undefined;
  }
}

function withoutHash(url: URL): string {
  const copy = new URL(url.href);
  copy.hash = '';
  return copy.href;
}

function build(root: JsonObject): RefIndex {
  const rootId = typeof root.$id === 'string' && !root.$id.startsWith('#') ? resolveUri(root.$id, DOCUMENT) : undefined;
  const rootBase = rootId ? withoutHash(rootId) : DOCUMENT;
  const index: RefIndex = { rootBase, bases: new WeakMap(), resources: new Map([[rootBase, root]]), anchors: new Map() };
  const stack: [Json, string, number][] = [[root, rootBase, 0]];
  while (stack.length > 0) {
    const [node, parent, depth] = stack.pop()!;
    if (!isJsonObject(node) || depth > MAX_DEPTH || index.bases.has(node)) continue;
    let base = parent;
    const id = node.$id;
    if (typeof id === 'string' && id.startsWith('#') && id.length > 1) index.anchors.set(`${base}${id}`, node);
    else if (typeof id === 'string' && node !== root) {
      const url = resolveUri(id, parent);
      if (url) {
        base = withoutHash(url);
        if (!index.resources.has(base)) index.resources.set(base, node);
      }
    }
    for (const key of ['$anchor', '$dynamicAnchor'] as const) {
      const anchor = node[key];
      if (typeof anchor === 'string' && !index.anchors.has(`${base}#${anchor}`)) index.anchors.set(`${base}#${anchor}`, node);
    }
    index.bases.set(node, base);
    for (const [key, value] of Object.entries(node)) {
      if (ONE.has(key) && isJsonObject(value)) stack.push([value, base, depth + 1]);
      if (MAP.has(key) && isJsonObject(value)) for (const sub of Object.values(value)) stack.push([sub, base, depth + 1]);
      if (LIST.has(key) && Array.isArray(value)) for (const sub of value) stack.push([sub, base, depth + 1]);
    }
  }
  return index;
}

/** What `ref`, written in `from` (a subschema of `root`), names; undefined when it names nothing in `root`. */
export function resolveRef(root: Json, from: JsonObject, ref: string): Json | undefined {
  if (!isJsonObject(root)) return ref === '#' || ref.startsWith('#/') ? resolveLocalRef(root, ref) : undefined;
  let index = indexes.get(root);
  if (!index) {
    index = build(root);
    indexes.set(root, index);
  }
  const base = index.bases.get(from) ?? index.rootBase;
  // The usual case, a pointer into the document written outside any embedded resource: no URL to parse.
  if (base === index.rootBase && (ref === '#' || ref.startsWith('#/'))) return resolveLocalRef(root, ref);
  const url = resolveUri(ref, base);
  if (!url) return undefined;
  let fragment: string;
  try {
    fragment = decodeURIComponent(url.hash.slice(1));
  } catch {
    return undefined;
  }
  const resource = index.resources.get(withoutHash(url));
  if (!resource) return undefined;
  if (fragment === '') return resource;
  if (fragment.startsWith('/')) return getPointer(resource, fragment);
  return index.anchors.get(`${withoutHash(url)}#${fragment}`);
}
