/**
 * Schemas whose validation would recurse without end: a `$ref` (or `$dynamicRef`, `$recursiveRef`) that
 * leads back to the schema it is in, or to one that applies it, at the same place in the instance, as in
 * `{type: object, $ref: "#"}` or a property whose `$ref` names itself. ajv compiles some of them and then
 * overflows the stack on every value it validates (so each tools/call would become an error), and reports the
 * others only as "Maximum call stack size exceeded"; every client's validator would do the same.
 *
 * A graph of the schema's subschemas: an edge for each keyword that applies a subschema to the same instance
 * location (the refs, allOf, anyOf, oneOf, not, if/then/else, dependentSchemas and draft-07's schema-valued
 * dependencies); a cycle of those edges is the fault. Keywords that descend into the instance (properties,
 * items, additionalProperties, contains, propertyNames, unevaluated*, …) consume some of it at each turn, so a
 * recursive tree schema is fine. Refs resolve as the rest of the retrofit resolves them (./ref-resolve.ts:
 * embedded resources, such as the schema files the config loader bundles, and anchors). Only what validation
 * can reach from the root counts (a cycle in unused `$defs` harms nothing). Iterative, each subschema and
 * each edge visited once: linear in the schema's size.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { resolveRef } from './ref-resolve.js';
import { LIST, MAP, ONE, type Segment } from './subschemas.js';

/** A same-location cycle, found at the schema validation enters it by. */
export interface SchemaCycle {
  /** Where that schema is, from the root. */
  readonly path: readonly Segment[];
  /** The ref keyword and its value that close the cycle, e.g. `$ref "#"`. */
  readonly ref: string;
  /** The schemas of the cycle as pointers, from that schema back to it (`#`, `#/allOf/0`, `#`); a long one shortened. */
  readonly cycle: readonly string[];
  /** One line saying all of it. */
  readonly message: string;
}

const REFS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;
const SAME_ONE = ['not', 'if'] as const;
const SAME_LIST = ['allOf', 'anyOf', 'oneOf'] as const;
const SAME_MAP = ['dependentSchemas', 'dependencies'] as const;
/** Maps that name subschemas but apply none of them by themselves. */
const DEFINITIONS = new Set(['$defs', 'definitions']);

interface Edge {
  readonly to: JsonObject;
  /** Set for a ref edge: the keyword and the ref as written (the gateway's own ids by file name). */
  readonly ref?: string;
}

/** The subschemas `node` applies at the instance location it is applied at. */
function sameLocation(node: JsonObject, root: JsonObject): Edge[] {
  const out: Edge[] = [];
  for (const key of REFS) {
    const ref = node[key];
    if (typeof ref !== 'string') continue;
    const to = resolveRef(root, node, ref);
    if (isJsonObject(to)) out.push({ to, ref: `${key} ${JSON.stringify(displayId(ref))}` });
  }
  for (const key of SAME_LIST) {
    const list = node[key];
    if (Array.isArray(list)) for (const to of list) if (isJsonObject(to)) out.push({ to });
  }
  for (const key of SAME_ONE) if (isJsonObject(node[key])) out.push({ to: node[key] });
  // then/else apply only beside an `if` (a validator ignores them otherwise).
  if (node.if !== undefined) for (const key of ['then', 'else'] as const) if (isJsonObject(node[key])) out.push({ to: node[key] });
  for (const key of SAME_MAP) {
    const map = node[key];
    if (isJsonObject(map)) for (const to of Object.values(map)) if (isJsonObject(to)) out.push({ to });
  }
  return out;
}

/** The subschemas written inside `node` that validation may apply (not those only defined in `$defs`). */
function children(node: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (DEFINITIONS.has(key)) continue;
    if (ONE.has(key) && isJsonObject(value)) out.push(value);
    if (MAP.has(key) && isJsonObject(value)) for (const sub of Object.values(value)) if (isJsonObject(sub)) out.push(sub);
    if (LIST.has(key) && Array.isArray(value)) for (const sub of value) if (isJsonObject(sub)) out.push(sub);
  }
  return out;
}

/**
 * Where an object of the document is: the object or array it is written in and the steps from there (a
 * link up, not a whole path, so that a deeply nested schema costs memory linear in its size), and the
 * resource it is in.
 */
interface Place {
  readonly up: Place | undefined;
  readonly steps: readonly Segment[];
  /** How a message names the resource: "" for the document, a file name for an embedded schema file. */
  readonly resource: string;
  /** The place of the resource's own root (undefined: the document's); set once the place is made. */
  home: Place | undefined;
}

/** The path from `to` (undefined: the document root) down to `place`. */
function pathOf(place: Place, to?: Place): Segment[] {
  const parts: (readonly Segment[])[] = [];
  for (let p: Place | undefined = place; p !== undefined && p !== to; p = p.up) parts.push(p.steps);
  return parts.reverse().flat();
}

/**
 * A resource's `$id` as a message shows it: the gateway's own ids (the `.invalid` host, e.g. a schema file the
 * config loader embedded as `https://mcp-retrofit.invalid/schema-files/<digest>/b.json`) by their last
 * segment, the file's name; any other as written.
 */
export function displayId(id: string): string {
  if (!id.includes('mcp-retrofit.invalid')) return id;
  try {
    const url = new URL(id);
    if (url.hostname !== 'mcp-retrofit.invalid') return id;
    return `${decodeURIComponent(url.pathname.slice(url.pathname.lastIndexOf('/') + 1))}${url.hash}`;
  } catch {
    return id;
  }
}

/** A place named as a pointer into its resource: `#/properties/a`, or `b.json#/properties/a` in an embedded one. */
function nameOf(place: Place | undefined): string {
  if (place === undefined) return '(a subschema)';
  const pointer = pathOf(place, place.home).map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`);
  return `${place.resource}#${pointer.join('')}`;
}

/** Where every object of the document is (the first place, for one written twice through a YAML alias). */
function placesOf(root: JsonObject): Map<JsonObject, Place> {
  const places = new Map<JsonObject, Place>();
  const stack: [Json, Place | undefined, Segment[]][] = [[root, undefined, []]];
  while (stack.length > 0) {
    const [value, up, steps] = stack.pop()!;
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        if (typeof v === 'object' && v !== null) stack.push([v, up, [...steps, i]]);
      });
    } else if (isJsonObject(value) && !places.has(value)) {
      const id = value.$id;
      const own = value !== root && typeof id === 'string' && !id.startsWith('#');
      const place: Place = { up, steps, resource: own ? displayId(id.replace(/#$/, '')) : (up?.resource ?? ''), home: up?.home };
      if (own) place.home = place;
      places.set(value, place);
      for (const [k, v] of Object.entries(value)) if (typeof v === 'object' && v !== null) stack.push([v, place, [k]]);
    }
  }
  return places;
}

/** The schemas validation can reach from the root, in the order it meets them. */
function reachable(root: JsonObject): JsonObject[] {
  const seen = new Set<JsonObject>([root]);
  const order: JsonObject[] = [];
  const queue: JsonObject[] = [root];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    order.push(node);
    for (const next of [...sameLocation(node, root).map((e) => e.to), ...children(node)]) {
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push(next);
    }
  }
  return order;
}

/** Most entries of a cycle a message shows (the first schemas, the last four), and most cycles reported. */
const MAX_SHOWN = 10;
const MAX_CYCLES = 10;

interface Frame {
  readonly node: JsonObject;
  readonly edges: readonly Edge[];
  next: number;
  /** The edge this frame was entered by. */
  readonly via?: Edge;
}

/**
 * The same-location cycles validation can enter, one per schema it is entered at (at most MAX_CYCLES); none
 * for a sound schema.
 */
export function schemaCycles(schema: Json): SchemaCycle[] {
  if (!isJsonObject(schema)) return [];
  const places = placesOf(schema);
  // 1: on the walk's stack; 2: done, no cycle through it is left to find.
  const state = new Map<JsonObject, 1 | 2>();
  const found = new Map<JsonObject, SchemaCycle>();
  for (const start of reachable(schema)) {
    if (state.has(start)) continue;
    const stack: Frame[] = [{ node: start, edges: sameLocation(start, schema), next: 0 }];
    const depthOf = new Map<JsonObject, number>([[start, 0]]);
    state.set(start, 1);
    while (stack.length > 0) {
      const top = stack.at(-1)!;
      const edge = top.edges[top.next++];
      if (edge === undefined) {
        state.set(top.node, 2);
        depthOf.delete(top.node);
        stack.pop();
        continue;
      }
      const seen = state.get(edge.to);
      if (seen === undefined) {
        state.set(edge.to, 1);
        depthOf.set(edge.to, stack.length);
        stack.push({ node: edge.to, edges: sameLocation(edge.to, schema), next: 0, via: edge });
      } else if (seen === 1 && !found.has(edge.to)) {
        // Back to a schema on the stack: the frames from it to here, and this edge, are the cycle.
        const frames = stack.slice(depthOf.get(edge.to)!);
        const edges = [...frames.slice(1).map((f) => f.via!), edge];
        const ref = edges.findLast((e) => e.ref !== undefined)?.ref ?? 'a keyword';
        const nodes = [...frames.map((f) => f.node), edge.to];
        // A long cycle is named by its first and last schemas (naming one costs its depth).
        const shown = nodes.length <= MAX_SHOWN ? nodes : [...nodes.slice(0, MAX_SHOWN - 5), undefined, ...nodes.slice(-4)];
        const cycle = shown.map((n) => (n === undefined ? `… ${nodes.length - MAX_SHOWN + 1} more …` : nameOf(places.get(n))));
        const at = places.get(edge.to);
        const path = at === undefined ? [] : pathOf(at);
        const message = `${ref} leads back to this schema at the same place in the result (${cycle.join(' -> ')}): validating anything would recurse without end`;
        found.set(edge.to, { path, ref, cycle, message });
        if (found.size >= MAX_CYCLES) return [...found.values()];
      }
    }
  }
  return [...found.values()];
}
