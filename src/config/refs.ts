/**
 * The `$ref`s of a schema document and where each one points: inside the document, at another schema file
 * (relative to the referring file, or a `file:` URI), over the network (never fetched: a problem), or to an
 * id only a validator can resolve (`urn:…`, left to ajv). Walks schema keywords only: `const`, `enum`,
 * `default` and `examples` hold data, and the keys of `properties`-like maps are names.
 */
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isJsonObject, type Json, type JsonSchema } from '../json.js';
import type { Segment } from './problems.js';

const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);
const NAMED_SCHEMAS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** Where one `$ref` points. */
export type RefTarget =
  | { readonly kind: 'local' }
  | { readonly kind: 'file'; readonly file: string; readonly fragment: string }
  | { readonly kind: 'network'; readonly url: string }
  | { readonly kind: 'other' };

/** A `$ref` of a document: its text, the path of the `$ref` member, and its target. */
export interface FoundRef {
  readonly ref: string;
  readonly path: readonly Segment[];
  readonly target: RefTarget;
}

/** The `$id` a subschema declares as a resource of its own (draft-07's `#name` ids are anchors). */
function ownId(node: { readonly [key: string]: Json }): string | undefined {
  return typeof node.$id === 'string' && !node.$id.startsWith('#') && node.$id !== '' ? node.$id : undefined;
}

/**
 * A copy of `schema` with every `$ref` string replaced by what `map` returns for it (the same string to keep
 * it). `map` gets the ref, the path of its `$ref` member and the base URI it is resolved against.
 */
export function mapRefs(schema: JsonSchema, base: string, map: (ref: string, path: readonly Segment[], base: string) => string): JsonSchema {
  const walk = (node: Json, path: Segment[], base: string): Json => {
    if (Array.isArray(node)) return node.map((item, i) => walk(item, [...path, i], base));
    if (!isJsonObject(node)) return node;
    const id = ownId(node);
    const here = id === undefined ? base : safeUrl(id, base) ?? base;
    const out: { [key: string]: Json } = {};
    for (const [key, value] of Object.entries(node)) {
      let next: Json;
      if (key === '$ref' && typeof value === 'string') next = map(value, [...path, key], here);
      else if (DATA_KEYWORDS.has(key)) next = value;
      else if (NAMED_SCHEMAS.has(key) && isJsonObject(value)) {
        const named: { [key: string]: Json } = {};
        for (const [name, sub] of Object.entries(value)) defineMember(named, name, walk(sub, [...path, key, name], here));
        next = named;
      } else next = walk(value, [...path, key], here);
      defineMember(out, key, next);
    }
    return out;
  };
  return walk(schema, [], base) as JsonSchema;
}

/** `__proto__` stays an ordinary member, as the position-aware parser made it. */
function defineMember(target: { [key: string]: Json }, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function safeUrl(ref: string, base: string): string | undefined {
  try {
    const url = new URL(ref, base);
    url.hash = '';
    return url.href;
  } catch {
    return undefined;
  }
}

/** Every absolute resource id the document declares (its root's and its subschemas'), resolved against `base`. */
export function declaredIds(schema: JsonSchema, base: string): Set<string> {
  const ids = new Set<string>();
  const walk = (node: Json, base: string): void => {
    if (Array.isArray(node)) return node.forEach((item) => walk(item, base));
    if (!isJsonObject(node)) return;
    const id = ownId(node);
    const here = id === undefined ? base : safeUrl(id, base) ?? base;
    if (id !== undefined) ids.add(here);
    for (const [key, value] of Object.entries(node)) {
      if (DATA_KEYWORDS.has(key)) continue;
      if (NAMED_SCHEMAS.has(key) && isJsonObject(value)) Object.values(value).forEach((sub) => walk(sub, here));
      else walk(value, here);
    }
  };
  walk(schema, base);
  return ids;
}

/**
 * Where `ref`, written in `file` and resolved against `base` there, points. `ids` are the resource ids
 * embedded in the schemas at hand: a ref to one of them stays for the validator.
 */
export function classifyRef(ref: string, base: string, file: string, ids: ReadonlySet<string>): RefTarget {
  if (ref.startsWith('#')) return { kind: 'local' };
  const resolved = safeUrl(ref, base);
  if (resolved !== undefined && ids.has(resolved)) return { kind: 'other' };
  const hash = ref.indexOf('#');
  const fragment = hash < 0 ? '' : ref.slice(hash + 1);
  const uri = hash < 0 ? ref : ref.slice(0, hash);
  if (uri === '') return { kind: 'local' };
  if (SCHEME.test(uri)) {
    const scheme = uri.slice(0, uri.indexOf(':')).toLowerCase();
    if (scheme === 'http' || scheme === 'https') return { kind: 'network', url: uri };
    if (scheme === 'file') return { kind: 'file', file: fileURLToPath(uri), fragment };
    return { kind: 'other' };
  }
  // A relative reference names a file next to the one it is written in, whatever `$id`s say.
  let path: string;
  try {
    path = decodeURIComponent(uri);
  } catch {
    path = uri;
  }
  return { kind: 'file', file: resolve(dirname(file), path), fragment };
}

/** Every `$ref` of a document written in `file`, with its target; `ids` as for classifyRef. */
export function findRefs(schema: JsonSchema, file: string, ids: ReadonlySet<string>): FoundRef[] {
  const found: FoundRef[] = [];
  mapRefs(schema, fileBase(file), (ref, path, base) => {
    found.push({ ref, path, target: classifyRef(ref, base, file, ids) });
    return ref;
  });
  return found;
}

/** The base URI of a document read from `file`. */
export function fileBase(file: string): string {
  return pathToFileURL(file).href;
}
