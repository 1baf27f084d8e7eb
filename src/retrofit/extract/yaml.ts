/**
 * `yaml`: `key: value` reports, read with the yaml package (unbounded.ts: the tool is isolated) into a tree
 * that keeps every scalar's source text (yaml-tree.ts), then typed by what the schema wants at each node (locator.ts). YAML would make `permissions: 644` a number, `zip: 02134` 2134 and
 * `version: 1.10` 1.1; here a scalar keeps its text unless the schema there asks for its YAML type:
 * - the schema wants a string and not the YAML type (or not exactly it: `1.10` for string|number) → the text;
 * - the schema wants the YAML type → the number/boolean/null, if that number is exactly what the text spells;
 * - nothing is wanted there → the YAML value if it prints back as the same text (`644`, `true`), else the text.
 * Quoted and block scalars are strings. Reports that are not YAML ("Status: ok: yes") fall back to one
 * `key: value` pair per line when every non-blank line has that shape, and none is cut-off JSON or YAML: a
 * key that opens a quote or a brace (`{"a": 1, "b":`), a value that opens one it does not close (`[1, 2`).
 */
import type { Json, JsonObject } from '../../json.js';
import { inexactReason, isExactLiteral } from '../../exact-number.js';
import type { Locator } from '../locator.js';
import { setField } from '../safe-json.js';
import type { Wants } from '../schema-walk.js';
import { runYaml } from './unbounded.js';
import type { YamlNode } from './yaml-tree.js';

const LINE_RE = /^\s*([^:]+?)\s*:\s*(.*?)\s*$/;
/** Nodes one reading may produce (aliases can multiply a small text) and how deep it may nest. */
export const YAML_MAX_NODES = 1_000_000;
const MAX_DEPTH = 512;

/** A key that opens a flow collection or a quoted scalar: the line is cut JSON or YAML (`{"a": 1, "b":`), no report. */
const OPENS_KEY = /^["'{[]/;
const ESCAPED_END = /(^|[^\\])(\\\\)*\\"$/;

/**
 * True when a value opens a quoted scalar or a flow collection it does not close (`"abc`, `[1, 2`): text cut
 * off, which the fallback must not serve as if it were the value.
 */
function unfinished(value: string): boolean {
  const first = value[0];
  if (first === '"' || first === "'") {
    // A closing `"` after an odd run of backslashes is escaped, so it closes nothing.
    return value.length < 2 || value[value.length - 1] !== first || (first === '"' && ESCAPED_END.test(value));
  }
  if (first !== '{' && first !== '[') return false;
  let depth = 0;
  let quote: string | undefined;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (--depth < 0) return true;
    }
  }
  return depth !== 0 || quote !== undefined;
}

function lines(text: string): JsonObject | undefined {
  const out: JsonObject = {};
  let any = false;
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const m = LINE_RE.exec(line);
    if (!m || OPENS_KEY.test(m[1]!) || unfinished(m[2]!)) return undefined;
    setField(out, m[1]!, m[2]!);
    any = true;
  }
  return any ? out : undefined;
}

class Refused extends Error {}

interface Typing {
  readonly anchors: Map<string, YamlNode>;
  readonly notes: string[];
  nodes: number;
}

function pointerOf(path: readonly (string | number)[]): string {
  return path.map((t) => `/${String(t).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

function scalar(node: Extract<YamlNode, { k: 'scalar' }>, wants: Wants, path: readonly (string | number)[], typing: Typing): Json {
  const v = node.v;
  if (node.quoted || typeof v === 'string') return String(v);
  if (v === null) return !wants.any && wants.types.has('string') && !wants.types.has('null') ? node.src : null;
  const printsBack = JSON.stringify(v) === node.src;
  if (wants.any) return printsBack ? v : node.src;
  const kinds = typeof v === 'boolean' ? ['boolean'] : Number.isInteger(v) ? ['integer', 'number'] : ['number'];
  if (!kinds.some((k) => wants.types.has(k))) return node.src;
  if (wants.types.has('string') && !printsBack) return node.src;
  if (typeof v === 'number' && !isExactLiteral(node.src, v)) {
    if (Number.isFinite(v)) typing.notes.push(inexactReason(pointerOf(path), node.src));
    return node.src;
  }
  return v;
}

function keyOf(node: YamlNode): string | undefined {
  if (node.k !== 'scalar') return undefined;
  return node.quoted || typeof node.v === 'string' ? String(node.v) : node.src;
}

function typed(node: YamlNode, at: Locator, path: (string | number)[], typing: Typing, expanding: boolean): Json {
  if (++typing.nodes > YAML_MAX_NODES) throw new Refused(`the YAML expands to more than ${YAML_MAX_NODES} values (aliases)`);
  if (path.length > MAX_DEPTH) throw new Refused('the YAML nests too deeply to read');
  if (node.k !== 'alias' && node.a !== undefined && !expanding) typing.anchors.set(node.a, node);
  switch (node.k) {
    case 'alias': {
      const target = typing.anchors.get(node.ref);
      if (!target) throw new Refused(`the YAML alias *${node.ref} names no anchor before it`);
      return typed(target, at, path, typing, true);
    }
    case 'scalar':
      return scalar(node, at.wants(), path, typing);
    case 'seq':
      return node.items.map((item, i) => {
        path.push(i);
        const out = typed(item, at.at(i), path, typing, expanding);
        path.pop();
        return out;
      });
    case 'map': {
      const out: JsonObject = {};
      for (const [k, v] of node.pairs) {
        const key = keyOf(k);
        if (key === undefined) throw new Refused('the YAML has a key that is not a scalar, which JSON cannot hold');
        path.push(key);
        setField(out, key, typed(v, at.at(key), path, typing, expanding));
        path.pop();
      }
      return out;
    }
  }
}

/** A YAML reading: the value and the reasons attached to it (numbers kept as text). */
export interface YamlReading {
  readonly value: Json;
  readonly notes: readonly string[];
}

/**
 * The YAML reading of `text`, typed where `at` says (the tool is isolated: this runs on the pipeline's
 * isolation worker, under its deadline). When the text is over the input bound (or the tree cannot be
 * read), the reason goes onto `notes` and there is no reading (not even the line-by-line one).
 */
export function extractYaml(text: string, at: Locator, notes?: string[]): YamlReading | undefined {
  const parsed = runYaml(text);
  if (parsed.ok && (parsed.tree.k === 'map' || parsed.tree.k === 'seq')) {
    const typing: Typing = { anchors: new Map(), notes: [], nodes: 0 };
    try {
      return { value: typed(parsed.tree, at, [], typing, false), notes: typing.notes };
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
      notes?.push(err.message);
      return undefined;
    }
  }
  if (!parsed.ok && parsed.invalid !== true) {
    notes?.push(parsed.reason);
    return undefined;
  }
  // Not YAML (or a scalar): try the line-by-line reading.
  const value = lines(text);
  return value === undefined ? undefined : { value, notes: [] };
}
