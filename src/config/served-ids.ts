/**
 * One `$id`, one schema, across reloads too. A connected client keeps what it compiled for the life of its
 * connection, keyed by `$id`: the v1 SDK client asks its ajv for a schema by `$id` before compiling one, so
 * after a reload that changed a schema but kept its `$id` (the schema file's own, or the id bundle.ts embeds
 * a referenced file under) it validates the tool's results against the old schema, and refuses them.
 *
 * So each load remembers which content every resource `$id` of a served outputSchema named (the first
 * generation's as written), and a later generation that gives one of those ids different content serves it
 * under `<id>?mcp-retrofit-schema=<hash of the content>` instead (refs that name it follow): a new id per
 * content, which a client compiles afresh once tools/list_changed makes it list again; content an id named
 * before keeps that id. Relative refs resolve alike under the renamed id (only its query differs).
 */
import { createHash } from 'node:crypto';
import { isJsonObject, type Json, type JsonObject, type JsonSchema } from '../json.js';
import { mapRefs } from './refs.js';
import { CONTENT_PARAM, idSites } from './schema-ids.js';
import type { Segment } from './problems.js';

/** Most ids remembered; past it, ids not seen yet are served as written and not remembered. */
export const MAX_SERVED_IDS = 10_000;

function contentHash(schema: Json): string {
  return createHash('sha256').update(JSON.stringify(schema)).digest('hex').slice(0, 16);
}

function withoutFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
}

/** `id` and the form URL resolution gives it (a ref resolved against a base comes out normalized). */
function spellings(id: string): string[] {
  try {
    const href = new URL(id).href;
    return href === id ? [id] : [id, href];
  } catch {
    return [id];
  }
}

function setAt(root: JsonObject, path: readonly Segment[], id: string): void {
  let node: Json | undefined = root;
  for (const step of path) node = Array.isArray(node) ? node[Number(step)] : isJsonObject(node) ? node[String(step)] : undefined;
  if (isJsonObject(node)) node.$id = id;
}

/** The content each served resource id named, from the first generation that served it on. */
export class ServedIds {
  /** What earlier generations served: the ids a client may hold. */
  readonly #earlier: ReadonlyMap<string, string>;
  /** What this generation adds (an id no earlier one served). Within one generation, schema-ids.ts rules. */
  readonly #added = new Map<string, string>();

  /** A registry for the generation after `previous` (read only: a reload that fails leaves it as it was). */
  constructor(previous?: ServedIds) {
    this.#earlier = previous === undefined ? new Map() : previous.#all();
  }

  #all(): Map<string, string> {
    const all = new Map(this.#earlier);
    for (const [id, hash] of this.#added) if (all.size < MAX_SERVED_IDS && !all.has(id)) all.set(id, hash);
    return all;
  }

  /**
   * `schema` (an outputSchema as it will be served) with every resource id whose content differs from what
   * an earlier generation served under it renamed (see the module comment); the schema itself when none is.
   */
  distinct(schema: JsonSchema): JsonSchema {
    if (!isJsonObject(schema)) return schema;
    const renamed = new Map<string, string>();
    const sites: { path: readonly Segment[]; id: string }[] = [];
    for (const site of idSites(schema)) {
      const hash = contentHash(site.schema);
      const first = this.#earlier.get(site.id);
      if (first === undefined) {
        if (!this.#added.has(site.id)) this.#added.set(site.id, hash);
        continue;
      }
      if (first === hash) continue;
      const id = `${site.id}${site.id.includes('?') ? '&' : '?'}${CONTENT_PARAM}=${hash}`;
      for (const spelling of spellings(site.id)) renamed.set(spelling, id);
      sites.push({ path: site.path, id });
    }
    if (sites.length === 0) return schema;
    const out = mapRefs(schema, '', (ref, _path, base) => {
      if (ref.startsWith('#')) return ref;
      let resolved: string;
      try {
        resolved = base === '' ? new URL(ref).href : new URL(ref, base).href;
      } catch {
        resolved = ref;
      }
      const id = renamed.get(withoutFragment(resolved)) ?? renamed.get(withoutFragment(ref));
      if (id === undefined) return ref;
      const hash = resolved.indexOf('#');
      return hash < 0 ? id : `${id}${resolved.slice(hash)}`;
    }) as JsonObject;
    for (const site of sites) setAt(out, site.path, site.id);
    return out;
  }
}
