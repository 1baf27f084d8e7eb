/**
 * Cross-file `$ref`s, resolved at load: a configured schema that refers to other schema files
 * (`other.yaml#/$defs/x`, `./dir/x.json`; relative to the referring file, JSON or YAML) becomes one
 * self-contained schema. Each referenced file is embedded under the root's `$defs` (`definitions` for
 * draft-07) as a resource with its own `$id`, and every ref to it is rewritten to that id, so:
 * - clients are served a schema they can resolve (never a path on the gateway's disk),
 * - validators are compiled from data alone: the offload worker, which recompiles a tool from its config,
 *   needs no file access, and nothing reads a file at request time,
 * - cycles between files are fine (ajv resolves ids; only a root file that others refer back to is there twice,
 *   as the root and as the copy they refer to).
 * An http(s) `$ref` is never fetched: it is a problem, as is a missing file or a JSON pointer that is not
 * in the file it names. Files are read through the load's SchemaFiles, so each once.
 */
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { isJsonObject, type JsonObject, type JsonSchema } from '../json.js';
import { dialectOf, mentionsId } from '../retrofit/validate.js';
import type { SchemaFiles } from './files.js';
import type { PositionIndex } from './positions.js';
import { at, type ConfigProblem, type Segment } from './problems.js';
import { declaredIds, fileBase, findRefs, mapRefs, type FoundRef } from './refs.js';

/** A configured schema and where it is written. */
export interface SchemaSource {
  readonly schema: JsonSchema;
  /** The file it is written in (the config file, for an inline schema). */
  readonly file: string;
  /** Positions of that file. */
  readonly index: PositionIndex;
  /** Where the schema sits in that file (`[]` for a schema file). */
  readonly at: readonly Segment[];
}

/** A referenced file, as embedded in the bundle. */
export interface EmbeddedFile {
  /** Its place in the bundled schema, e.g. `['$defs', 'mcp-retrofit:other.yaml']`. */
  readonly place: readonly Segment[];
  readonly file: string;
  readonly index: PositionIndex;
}

/** The self-contained schema (the source's own when it refers to no file), and what went wrong. */
export interface Bundle {
  readonly schema: JsonSchema;
  readonly embedded: readonly EmbeddedFile[];
  readonly problems: readonly ConfigProblem[];
}

interface Doc {
  readonly file: string;
  readonly schema: JsonSchema;
  readonly index: PositionIndex;
  readonly at: readonly Segment[];
  refs: FoundRef[];
}

/** The id a referenced file is embedded under: stable per file, and no path of the gateway's disk in it. */
function fileId(file: string): string {
  const digest = createHash('sha256').update(file).digest('hex').slice(0, 16);
  return `https://mcp-retrofit.invalid/schema-files/${digest}/${encodeURIComponent(basename(file))}`;
}

function hasScheme(id: unknown): id is string {
  return typeof id === 'string' && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(id);
}

function withoutFragment(uri: string): string {
  const hash = uri.indexOf('#');
  return hash < 0 ? uri : uri.slice(0, hash);
}

/** A ref written by its target's own `$id` (`https://…/point.json#/x`), pointed at the id it is embedded under. */
function renamedRef(ref: string, base: string, renamed: ReadonlyMap<string, string>): string {
  if (renamed.size === 0 || ref.startsWith('#')) return ref;
  let resolved: string;
  try {
    resolved = new URL(ref, base).href;
  } catch {
    return ref;
  }
  const id = renamed.get(withoutFragment(resolved));
  if (id === undefined) return ref;
  const hash = resolved.indexOf('#');
  return hash < 0 ? id : `${id}${resolved.slice(hash)}`;
}

function problemAt(doc: Doc, path: readonly Segment[], message: string): ConfigProblem {
  const pos = doc.index.locate([...doc.at, ...path], 'value');
  return { file: doc.index.file, line: pos.line, col: pos.col, message: at([...doc.at, ...path], message) };
}

/** True when the JSON pointer `fragment` (`/a/b`, escaped) names a member of `schema`. */
function pointerExists(schema: JsonSchema, fragment: string): boolean {
  let node: unknown = schema;
  for (const raw of fragment.split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^(0|[1-9]\d*)$/.test(key)) node = node[Number(key)];
    else if (isJsonObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return false;
  }
  return true;
}

/** Loads every file the source refers to, transitively; returns the documents (the source first). */
async function loadGraph(source: SchemaSource, files: SchemaFiles, problems: ConfigProblem[]): Promise<Doc[]> {
  const root: Doc = { ...source, refs: [] };
  const docs = new Map<string, Doc>([[source.file, root]]);
  const queue: Doc[] = [root];
  for (let doc = queue.shift(); doc; doc = queue.shift()) {
    const ids = new Set([...docs.values()].flatMap((d) => [...declaredIds(d.schema, fileBase(d.file))]));
    doc.refs = findRefs(doc.schema, doc.file, ids);
    for (const ref of doc.refs) {
      const { target } = ref;
      if (target.kind === 'network') problems.push(problemAt(doc, ref.path, `$ref ${JSON.stringify(ref.ref)}: network references are never fetched (use a file next to this one)`));
      if (target.kind !== 'file' || docs.has(target.file)) continue;
      const read = await files.read(target.file);
      if (!read.ok) {
        if (read.error !== undefined) problems.push(problemAt(doc, ref.path, `$ref ${JSON.stringify(ref.ref)}: ${read.error}`));
        problems.push(...read.problems);
        continue;
      }
      const loaded: Doc = { file: read.file, schema: read.schema, index: read.index, at: [], refs: [] };
      docs.set(read.file, loaded);
      queue.push(loaded);
    }
  }
  // Fragments are checked once every file is in, so a pointer into a file read later is found too.
  for (const doc of docs.values()) {
    for (const ref of doc.refs) {
      const { target } = ref;
      if (target.kind !== 'file' || !target.fragment.startsWith('/')) continue;
      const named = docs.get(target.file);
      if (named && !pointerExists(named.schema, target.fragment)) {
        problems.push(problemAt(doc, ref.path, `$ref ${JSON.stringify(ref.ref)}: there is no #${target.fragment} in ${basename(target.file)}`));
      }
    }
  }
  return [...docs.values()];
}

const NON_FINITE = 'not a finite number (.inf, .nan, or past 1.8e308): JSON cannot hold it, so no client could read the schema';

/** Where `value` holds a number JSON cannot write (YAML's .inf and .nan, a literal past the doubles). */
function nonFinite(value: unknown, path: Segment[] = [], out: Segment[][] = [], depth = 0): Segment[][] {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) out.push([...path]);
  } else if (depth < 512 && Array.isArray(value)) {
    value.forEach((v, i) => nonFinite(v, [...path, i], out, depth + 1));
  } else if (depth < 512 && value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) nonFinite(v, [...path, k], out, depth + 1);
  }
  return out;
}

/** Makes `source` self-contained (see the module comment). Problems are reported where they are written. */
export async function bundleSchema(source: SchemaSource, files: SchemaFiles): Promise<Bundle> {
  const problems: ConfigProblem[] = [];
  if (!isJsonObject(source.schema)) return { schema: source.schema, embedded: [], problems };
  const docs = await loadGraph(source, files, problems);
  for (const doc of docs) for (const path of nonFinite(doc.schema)) problems.push(problemAt(doc, path, NON_FINITE));
  const [root, ...others] = docs;
  const referenced = new Set(docs.flatMap((d) => d.refs.flatMap((r) => (r.target.kind === 'file' ? [r.target.file] : []))));
  if (!root || problems.length > 0 || referenced.size === 0) return { schema: source.schema, embedded: [], problems };

  const ids = new Map<string, string>();
  // An embedded file's own $id, by the id it is embedded under instead.
  const renamed = new Map<string, string>();
  for (const doc of docs) {
    const own = isJsonObject(doc.schema) ? doc.schema.$id : undefined;
    if (hasScheme(own) && doc === root) ids.set(doc.file, own);
    else if (own !== undefined && !hasScheme(own) && (doc !== root || referenced.has(doc.file))) problems.push(problemAt(doc, ['$id'], 'a schema that other files refer to needs an absolute $id, or none'));
    else {
      ids.set(doc.file, fileId(doc.file));
      // A file with an $id of its own is embedded under the gateway's id for the file, not its own: a tool
      // that serves the file whole serves it under its own id, with its own `$schema` and `$defs`, and a
      // client that compiles every tool's schema in one validator (both SDKs do) rejects one id that names
      // two different schemas. Every embedded copy of a file is the same, so they may share the gateway's id.
      if (hasScheme(own)) renamed.set(withoutFragment(own), fileId(doc.file));
    }
  }
  // A root file that the files it refers to refer back to (mutual recursion) is embedded as well, and they
  // refer to that copy: the root itself carries no id of the file. A tool that names one of those files gets
  // it with the others in its `$defs`, and a tool that names another gets it as an embedded copy: were the root
  // under the file's id, that id would name two different schemas across the tools (one with `$defs`, one
  // without), which a client that compiles every tool's schema in one validator rejects.
  // (Not for a root that declares ids of its own: its copy would declare them twice in one schema.)
  const rootCopy = root.at.length === 0 && referenced.has(root.file) && !mentionsId(root.schema);
  const dialect = dialectOf(root.schema);
  const rewrite = (doc: Doc, copy = false): JsonObject => {
    const schema: JsonSchema = doc.schema === true ? {} : doc.schema === false ? { not: {} } : doc.schema;
    const out = mapRefs(schema, fileBase(doc.file), (ref, path, base) => {
      const found = doc.refs.find((r) => r.ref === ref && r.path.join('/') === path.join('/'));
      if (found?.target.kind !== 'file') return renamedRef(ref, base, renamed);
      const id = ids.get(found.target.file) ?? ref;
      return found.target.fragment === '' ? id : `${id}#${found.target.fragment}`;
    }) as JsonObject;
    const id = ids.get(doc.file);
    const embedded = doc !== root || copy;
    if (embedded && id !== undefined && hasScheme(out.$id)) return { ...out, $id: id };
    const needsId = id !== undefined && out.$id === undefined && (embedded || (referenced.has(doc.file) && !rootCopy));
    return needsId ? { $id: id, ...out } : out;
  };

  const bundled = rewrite(root);
  const container = dialect === 'draft-07' ? 'definitions' : '$defs';
  const existing = bundled[container];
  if (existing !== undefined && !isJsonObject(existing)) {
    problems.push(problemAt(root, [container], `cannot embed the files this schema refers to: ${container} is not an object`));
    return { schema: source.schema, embedded: [], problems };
  }
  const defs: JsonObject = { ...(existing ?? {}) };
  const embedded: EmbeddedFile[] = [];
  for (const doc of rootCopy ? [root, ...others] : others) {
    const schema = rewrite(doc, doc === root);
    if (schema.$schema !== undefined && dialectOf(schema) !== dialect) {
      problems.push(problemAt(doc, ['$schema'], `a file referred to must use the dialect of the schema that refers to it (${dialect ?? 'unknown'})`));
      continue;
    }
    delete schema.$schema;
    let key = `mcp-retrofit:${basename(doc.file)}`;
    for (let n = 2; Object.hasOwn(defs, key); n++) key = `mcp-retrofit:${basename(doc.file)}~${n}`;
    defs[key] = schema;
    embedded.push({ place: [container, key], file: doc.file, index: doc.index });
  }
  if (problems.length > 0) return { schema: source.schema, embedded: [], problems };
  return { schema: { ...bundled, [container]: defs }, embedded, problems };
}
