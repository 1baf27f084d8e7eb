/**
 * The schemas of one upstream's tool entries, as the policy compiler gets them: `*SchemaFile`s read (each
 * file once per load), inline ones taken as written, and every one made self-contained (bundle.ts) when it
 * `$ref`s other files. Records where each file's text lies, so compile errors inside a file (or inside one it
 * refers to) are reported at that file's own line.
 */
import { obj, type FileSchema, type ToolFiles } from './build.js';
import { bundleSchema, type SchemaSource } from './bundle.js';
import { schemaFilePath, type SchemaFiles } from './files.js';
import { PositionIndex } from './positions.js';
import type { ConfigProblem, Segment } from './problems.js';
import type { JsonSchema } from '../json.js';
import type { ServedIds } from './served-ids.js';

/** What loading one upstream's schemas needs. */
export interface SchemaContext {
  readonly configDir: string;
  /** Positions of the config file. */
  readonly index: PositionIndex;
  readonly files: SchemaFiles;
  /** Where each schema file's text lies, by the JSON pointer of its place in the config (filled in here). */
  readonly fileIndexes: Map<string, PositionIndex>;
  /** Records a problem and the config path it concerns. */
  readonly report: (problem: ConfigProblem, path: readonly Segment[]) => void;
  /** The content each outputSchema resource id named before: a reload's changed content gets a new id. */
  readonly ids: ServedIds;
}

const isSchema = (v: unknown): v is JsonSchema => typeof v === 'boolean' || (v !== null && typeof v === 'object' && !Array.isArray(v));

async function loadOne(tool: Record<string, unknown>, kind: 'output' | 'input', base: readonly Segment[], ctx: SchemaContext): Promise<FileSchema | undefined> {
  const ref = tool[`${kind}SchemaFile`];
  const place = [...base, `${kind}Schema`];
  let source: SchemaSource;
  if (typeof ref === 'string') {
    const keyPath = [...base, `${kind}SchemaFile`];
    const read = await ctx.files.read(schemaFilePath(ctx.configDir, ref));
    if (!read.ok) {
      if (read.error !== undefined) ctx.report(ctx.index.problem(keyPath, 'key', read.error, base), keyPath);
      for (const p of read.problems) ctx.report(p, keyPath);
      return undefined;
    }
    ctx.fileIndexes.set(PositionIndex.pointer(place), read.index);
    source = { schema: read.schema, file: read.file, index: read.index, at: [] };
  } else {
    const inline = tool[`${kind}Schema`];
    if (!isSchema(inline)) return undefined;
    source = { schema: inline, file: ctx.index.file, index: ctx.index, at: place };
  }
  const bundle = await bundleSchema(source, ctx.files);
  for (const p of bundle.problems) ctx.report(p, place);
  if (bundle.problems.length > 0) return undefined;
  for (const e of bundle.embedded) ctx.fileIndexes.set(PositionIndex.pointer([...place, ...e.place]), e.index);
  // Clients compile outputSchemas (and keep them by $id); inputSchemas they do not.
  const schema = kind === 'output' ? ctx.ids.distinct(bundle.schema) : bundle.schema;
  return typeof ref === 'string' ? { file: source.file, schema } : { schema };
}

/** Every tool entry's loaded schemas, by tool key; problems go to `ctx.report`. */
export async function loadToolSchemas(name: string, raw: unknown, ctx: SchemaContext): Promise<Map<string, ToolFiles>> {
  const out = new Map<string, ToolFiles>();
  for (const [key, entry] of Object.entries(obj(obj(raw).tools))) {
    const base = ['upstreams', name, 'tools', key];
    const tool = obj(entry);
    const files: { -readonly [K in keyof ToolFiles]: ToolFiles[K] } = {};
    for (const kind of ['output', 'input'] as const) {
      const loaded = await loadOne(tool, kind, base, ctx);
      if (loaded) files[kind] = loaded;
    }
    out.set(key, files);
  }
  return out;
}
