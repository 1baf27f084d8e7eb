/**
 * A YAML document as plain data that keeps each scalar's source text: `permissions: 644` is the scalar 644
 * *and* the text "644", so the schema can decide which one the value is (yaml.ts). Built from the yaml
 * package's document/node API (core schema: no timestamps, no custom tags). The parse is superlinear on
 * some inputs, so tools that read YAML are isolated: they run on the pipeline's isolation worker, under a
 * deadline (src/pipeline/rewrite.ts).
 */
import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument, type Node } from 'yaml';

/** One node. `a`: the anchor it defines; `ref`: the anchor an alias names. */
export type YamlNode =
  | { readonly k: 'map'; readonly pairs: readonly (readonly [YamlNode, YamlNode])[]; readonly a?: string }
  | { readonly k: 'seq'; readonly items: readonly YamlNode[]; readonly a?: string }
  | { readonly k: 'scalar'; readonly v: string | number | boolean | null; readonly src: string; readonly quoted: boolean; readonly a?: string }
  | { readonly k: 'alias'; readonly ref: string };

/** The parse options. */
export const YAML_OPTIONS = { schema: 'core', logLevel: 'error', uniqueKeys: false, customTags: [] as never[], prettyErrors: false } as const;

type Mutable = { -readonly [K in keyof YamlNode]?: unknown } & { a?: string };

function convert(n: unknown): YamlNode {
  if (n === null || n === undefined) return { k: 'scalar', v: null, src: '', quoted: false };
  if (isAlias(n)) return { k: 'alias', ref: n.source };
  let out: YamlNode;
  if (isMap(n)) out = { k: 'map', pairs: n.items.map((p) => [convert(p.key), convert(p.value)] as const) };
  else if (isSeq(n)) {
    // A `key: value` inside a flow sequence is a one-pair map.
    out = { k: 'seq', items: n.items.map((it) => (isPair(it) ? { k: 'map', pairs: [[convert(it.key), convert(it.value)] as const] } : convert(it))) };
  } else if (isScalar(n)) {
    const v = n.value;
    const value = typeof v === 'bigint' ? String(v) : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : null;
    out = { k: 'scalar', v: value, src: n.source ?? String(v), quoted: n.type !== undefined && n.type !== 'PLAIN' };
  } else out = { k: 'scalar', v: null, src: '', quoted: false };
  const anchor = (n as { anchor?: unknown }).anchor;
  if (typeof anchor === 'string') (out as Mutable).a = anchor;
  return out;
}

/** The tree of `text`, or why there is none (`invalid`: the text is not YAML). */
export type YamlTreeRun = { readonly ok: true; readonly tree: YamlNode } | { readonly ok: false; readonly reason: string; readonly invalid?: boolean };

/** Parse `text` into a YamlNode tree. Never throws. */
export function parseYamlTree(text: string): YamlTreeRun {
  try {
    const doc = parseDocument(text, YAML_OPTIONS);
    if (doc.errors.length > 0) return { ok: false, reason: 'not YAML', invalid: true };
    return { ok: true, tree: convert(doc.contents as Node | null) };
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, reason: 'the YAML nests too deeply to read' };
    return { ok: false, reason: 'not YAML', invalid: true };
  }
}
