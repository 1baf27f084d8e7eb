/**
 * YAML (or JSON) text → a plain JSON value plus an index from every path in it to its source position,
 * so that problems found later (ajv, files, policy compilation) can be reported as FILE:LINE:COL.
 * We walk the yaml package's node tree ourselves instead of calling toJS(): that gives each node's position
 * and lets the caller transform string scalars (the config file's `${VAR}` expansion) in the same pass.
 * Aliases are bounded (an alias bomb of a few lines would expand to millions of nodes): what they add to the
 * value is counted against MAX_ALIAS_NODES, and the nodes an alias reaches are not indexed one by one: the
 * alias's path points at its anchor's, so a problem inside an aliased value is reported where it is written.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Alias, type Scalar } from 'yaml';
import { at, type ConfigProblem, type Segment } from './problems.js';

/** A 1-based line and column. */
export interface Pos {
  readonly line: number;
  readonly col: number;
}

/** Where a value sits, and where its key sits when it is an object member. */
export interface NodePos {
  readonly key?: Pos;
  readonly value: Pos;
}

/** Which end of a node a problem points at: the key (unknown keys), the value, or the key if any (objects). */
export type Anchor = 'key' | 'value' | 'node';

/** Positions of every node of one parsed file, by path. */
export class PositionIndex {
  readonly file: string;
  readonly #nodes = new Map<string, NodePos>();
  /** The anchor's path, by the path of each alias that reaches it. */
  readonly #aliases = new Map<string, readonly Segment[]>();

  constructor(file: string) {
    this.file = file;
  }

  static pointer(path: readonly Segment[]): string {
    return path.map((s) => `/${String(s).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  }

  set(path: readonly Segment[], pos: NodePos): void {
    this.#nodes.set(PositionIndex.pointer(path), pos);
  }

  /** Nodes under `path` are where the nodes under `anchor` are (`path` holds an alias of that anchor). */
  alias(path: readonly Segment[], anchor: readonly Segment[]): void {
    this.#aliases.set(PositionIndex.pointer(path), anchor);
  }

  get(path: readonly Segment[]): NodePos | undefined {
    const own = this.#nodes.get(PositionIndex.pointer(path));
    if (own) return own;
    for (let n = path.length - 1; n >= 0; n--) {
      const anchor = this.#aliases.get(PositionIndex.pointer(path.slice(0, n)));
      if (anchor) return this.get([...anchor, ...path.slice(n)]);
    }
    return undefined;
  }

  /** The position for `path`, falling back to its deepest existing ancestor (a value that is not there). */
  locate(path: readonly Segment[], anchor: Anchor): Pos {
    for (let n = path.length; n >= 0; n--) {
      const found = this.get(path.slice(0, n));
      if (!found) continue;
      if (n < path.length) return found.key ?? found.value;
      if (anchor === 'value') return found.value;
      return found.key ?? found.value;
    }
    return { line: 1, col: 1 };
  }

  /** A problem at `path` whose message is prefixed with the dotted path `prefix` (defaults to `path`). */
  problem(path: readonly Segment[], anchor: Anchor, message: string, prefix: readonly Segment[] = path): ConfigProblem {
    const pos = this.locate(path, anchor);
    return { file: this.file, line: pos.line, col: pos.col, message: at(prefix, message) };
  }
}

/** Called for each string scalar; returns the value to store (e.g. after `${VAR}` expansion). */
export type StringHook = (value: string, path: readonly Segment[], scalar: Scalar, pos: Pos) => unknown;

export interface ParsedFile {
  readonly value: unknown;
  readonly index: PositionIndex;
  /** YAML syntax errors (and warnings); when any, `value` is undefined. */
  readonly problems: ConfigProblem[];
}

/**
 * Most nodes aliases may add to one file's value, in all. Far above what anchors shared between tool entries
 * add, far below what would take seconds (and gigabytes) to expand.
 */
export const MAX_ALIAS_NODES = 100_000;

/** Unwinds the walk once aliases have added MAX_ALIAS_NODES nodes. */
class AliasBudgetSpent extends Error {}

/** Parses YAML/JSON text with positions; duplicate keys and syntax errors become problems. */
export function parseWithPositions(text: string, file: string, onString?: StringHook): ParsedFile {
  const lineCounter = new LineCounter();
  // Duplicate keys are found here (duplicateKeys), in one pass: the yaml package's own check compares each key
  // with every earlier key of its map, so a schema file of 200,000 properties took minutes to load.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const index = new PositionIndex(file);
  const posOf = (offset: number): Pos => lineCounter.linePos(offset);
  const lines = text.split('\n');
  const problems: ConfigProblem[] = [...doc.errors, ...doc.warnings].map((e) => {
    const pos = posOf(e.pos[0]);
    // `{ key: ${VAR} }` is a YAML error (`{` cannot start a plain scalar in a flow collection): say how to fix it.
    const source = lines[pos.line - 1] ?? '';
    const hint = /[{[][^"']*\$\{/.test(source) ? ' (inside { } or [ ], quote values that hold ${…})' : '';
    return { file, line: pos.line, col: pos.col, message: `YAML: ${e.message.replace(/\s+/g, ' ').trim()}${hint}` };
  });
  problems.push(...duplicateKeys(doc, file, posOf));
  if (problems.length > 0) return { value: undefined, index, problems };
  const walker = new Walker(anchorsOf(doc), index, posOf, onString);
  try {
    const value = walker.walk(doc.contents, [], undefined);
    return { value, index, problems: walker.problems };
  } catch (err) {
    if (!(err instanceof AliasBudgetSpent)) throw err;
    return { value: undefined, index, problems: walker.problems };
  }
}

/**
 * Keys that repeat one of their map (the yaml package would say only "Map keys must be unique"): each named,
 * where it is, and where it was first. Scalar keys are equal when their values are (as the yaml package
 * compares them); one walk, a set of keys per map.
 */
function duplicateKeys(doc: ReturnType<typeof parseDocument>, file: string, posOf: (offset: number) => Pos): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  visit(doc, {
    Map(_key, map, ancestors) {
      const seen = new Map<unknown, Scalar>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const first = seen.get(pair.key.value);
        if (first === undefined) {
          seen.set(pair.key.value, pair.key);
          continue;
        }
        const path: Segment[] = [];
        ancestors.forEach((node, i) => {
          if (isPair(node) && isScalar(node.key)) path.push(String(node.key.value));
          else if (isSeq(node)) path.push(node.items.indexOf((ancestors[i + 1] ?? map) as (typeof node.items)[number]));
        });
        const pos = posOf(pair.key.range?.[0] ?? 0);
        const firstAt = first.range ? ` (first at line ${posOf(first.range[0]).line})` : '';
        problems.push({ file, line: pos.line, col: pos.col, message: at(path, `YAML: duplicate key ${JSON.stringify(String(pair.key.value))}${firstAt}: keys of a map must be unique`) });
      }
      return undefined;
    },
  });
  // In the file's order, as the yaml package reported them (a map's keys are checked before those inside it).
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}

/**
 * The anchored node each alias stands for (the last one of that name before it), found in one pass:
 * the yaml package's `Alias.resolve` searches the whole document on every call.
 */
function anchorsOf(doc: ReturnType<typeof parseDocument>): Map<Alias, unknown> {
  const latest = new Map<string, unknown>();
  const targets = new Map<Alias, unknown>();
  visit(doc, {
    Node(_key, node) {
      if (isAlias(node)) targets.set(node, latest.get(node.source));
      else if (node.anchor !== undefined) latest.set(node.anchor, node);
    },
  });
  return targets;
}

class Walker {
  readonly problems: ConfigProblem[] = [];
  readonly #active = new Set<unknown>();
  /** The path each anchored node was walked at (where the nodes its aliases reach are written). */
  readonly #anchorPaths = new Map<unknown, readonly Segment[]>();
  /** The outermost alias being expanded, if any: what an exhausted budget is reported at. */
  #expanding: { readonly path: readonly Segment[]; readonly offset: number | undefined } | undefined;
  /** Nodes aliases have added so far. */
  #added = 0;

  constructor(
    readonly targets: ReadonlyMap<Alias, unknown>,
    readonly index: PositionIndex,
    readonly posOf: (offset: number) => Pos,
    readonly onString: StringHook | undefined,
  ) {}

  walk(node: unknown, path: Segment[], keyPos: Pos | undefined): unknown {
    if (isAlias(node)) return this.expand(node, path, keyPos);
    const range = (node as { range?: [number, number, number] | null } | null)?.range;
    const pos = range ? this.posOf(range[0]) : (keyPos ?? { line: 1, col: 1 });
    if (this.#expanding) this.count();
    else {
      this.index.set(path, keyPos ? { key: keyPos, value: pos } : { value: pos });
      if ((node as { anchor?: string } | null)?.anchor !== undefined) this.#anchorPaths.set(node, path);
    }
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const key = pair.key;
        const keyValue = isScalar(key) ? key.value : key;
        if (keyValue !== null && typeof keyValue === 'object') {
          this.fail(path, undefined, (key as { range?: [number] } | null)?.range?.[0], 'YAML: keys must be plain strings');
          continue;
        }
        const name = String(keyValue);
        const keyRange = (key as { range?: [number] } | null)?.range;
        const kPos = keyRange ? this.posOf(keyRange[0]) : pos;
        // defineProperty: a `__proto__` key must stay an ordinary member, never a prototype.
        Object.defineProperty(out, name, {
          value: this.walk(pair.value, [...path, name], kPos),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    if (isSeq(node)) return node.items.map((item, i) => this.walk(item, [...path, i], undefined));
    if (isScalar(node)) {
      const v = node.value;
      if (typeof v === 'string') return this.onString ? this.onString(v, path, node, pos) : v;
      if (v === null || typeof v === 'number' || typeof v === 'boolean') return v;
      return String(v);
    }
    return null; // an empty value (`key:` with nothing after it)
  }

  /** An alias's value: its anchor's, walked again (values are never shared) without indexing it again. */
  expand(alias: Alias, path: Segment[], keyPos: Pos | undefined): unknown {
    const target = this.targets.get(alias);
    const offset = alias.range?.[0];
    // A recursive alias (`&a [*a]`) has no JSON form.
    if (target === undefined || this.#active.has(target)) return this.fail(path, keyPos, offset, 'YAML: alias cannot be resolved here');
    const outermost = this.#expanding === undefined;
    if (outermost) {
      const pos = offset !== undefined ? this.posOf(offset) : (keyPos ?? { line: 1, col: 1 });
      this.index.set(path, keyPos ? { key: keyPos, value: pos } : { value: pos });
      const anchor = this.#anchorPaths.get(target);
      if (anchor) this.index.alias(path, anchor);
      this.#expanding = { path, offset };
    }
    this.#active.add(target);
    try {
      return this.walk(target, path, keyPos);
    } finally {
      this.#active.delete(target);
      if (outermost) this.#expanding = undefined;
    }
  }

  /** Counts one node added by an alias; past the budget, reports the outermost alias and stops the walk. */
  count(): void {
    if (++this.#added <= MAX_ALIAS_NODES || !this.#expanding) return;
    const { path, offset } = this.#expanding;
    this.fail(path, undefined, offset, `YAML: aliases expand to more than ${MAX_ALIAS_NODES} nodes (an alias bomb?); write the values out, or share less`);
    throw new AliasBudgetSpent();
  }

  fail(path: readonly Segment[], keyPos: Pos | undefined, offset: number | undefined, message: string): null {
    const pos = offset !== undefined ? this.posOf(offset) : (keyPos ?? this.index.locate(path, 'node'));
    this.problems.push({ file: this.index.file, line: pos.line, col: pos.col, message: at(path, message) });
    return null;
  }
}
