/**
 * A message written again keeps the number literals of the message it was read from. The gateway parses an
 * upstream's answer with JSON.parse and writes the rewritten one with JSON.stringify, so a literal a double
 * cannot hold (`12345678901234567890`, `0.1000000000000000055511151231257827`) would go out as the double's
 * shortest text in parts the rewrite never touched (result._meta, a tool list's `maximum`). Only when the
 * original text holds such a literal (the cheap scan of ./extract/exact-json.ts: most texts pay only that) is
 * it read again, with a reviver that sees each literal's source text (`trailOf`); `stringifyKept` then writes
 * each of those literals verbatim (JSON.rawJSON) wherever the new message, on the same path, still holds the
 * number the literal reads as. A value the rewrite created or changed is written as it is. Response ids are
 * kept by src/jsonrpc/id-literal.ts too (batches, a worker's bytes), which finds them already exact.
 */
import { anyInexactToken, isInexactToken } from './extract/exact-json.js';

/** Where a message's inexact literals sit: its containers on the paths that lead to one, by key. */
export interface LiteralTrail {
  /** The container is an array (keys are indexes, as strings). */
  readonly array: boolean;
  /** Key → the inexact literal this container holds under it. */
  readonly literals: Map<string, string>;
  /** Key → the trail of a container under it that leads to one. */
  readonly children: Map<string, LiteralTrail>;
}

/** The reviver's third argument (Node 22+): a primitive's source text. */
interface ReviverContext {
  readonly source?: string;
}

type Reviver = (this: unknown, key: string, value: unknown, context: ReviverContext) => unknown;
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
const parseWith = JSON.parse as (text: string, reviver: Reviver) => unknown;

/**
 * The trail of `text`'s inexact number literals (a JSON text already parsed once), or undefined when it holds
 * none (the usual case: one scan, no parse), or when it cannot be read again (too deep for the reviver).
 */
export function trailOf(text: string): LiteralTrail | undefined {
  if (!anyInexactToken(text)) return undefined;
  // Containers are revived after their members (bottom-up): a container's trail is complete when it is seen.
  const trails = new Map<object, LiteralTrail>();
  const trailAt = (holder: object): LiteralTrail => {
    let t = trails.get(holder);
    if (!t) trails.set(holder, (t = { array: Array.isArray(holder), literals: new Map(), children: new Map() }));
    return t;
  };
  let root: unknown;
  try {
    root = parseWith(text, function (this: unknown, key, value, context) {
      const holder = this as object;
      if (typeof value === 'number') {
        const source = context.source;
        if (source !== undefined && isInexactToken(source, 0, source.length)) trailAt(holder).literals.set(key, source);
      } else if (value !== null && typeof value === 'object') {
        const child = trails.get(value);
        if (child) trailAt(holder).children.set(key, child);
      }
      return value;
    });
  } catch {
    return undefined;
  }
  return root !== null && typeof root === 'object' ? trails.get(root) : undefined;
}

/**
 * The members of `value` (a message written again) that still hold a literal of `trail`'s: its containers on
 * the same paths (new ones, as `{ ...result, structuredContent }` makes, or the original's the rewrite kept),
 * each with the keys whose number is still the one the literal reads as. A walk along the trail only
 * (iterative: bounded by the original's containers that lead to a literal).
 */
function keptIn(value: unknown, trail: LiteralTrail): Map<object, Map<string, string>> {
  const kept = new Map<object, Map<string, string>>();
  const stack: [unknown, LiteralTrail][] = [[value, trail]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, t] = next;
    if (node === null || typeof node !== 'object' || Array.isArray(node) !== t.array) continue;
    const members = node as Record<string, unknown>;
    for (const [key, literal] of t.literals) {
      if (!Object.hasOwn(members, key) || members[key] !== Number(literal)) continue;
      let keys = kept.get(node);
      if (!keys) kept.set(node, (keys = new Map()));
      keys.set(key, literal);
    }
    for (const [key, child] of t.children) if (Object.hasOwn(members, key)) stack.push([members[key], child]);
  }
  return kept;
}

/** `value` as JSON text, each literal of `trail` (its original's: trailOf) written as it was where it still stands. */
export function stringifyKept(value: unknown, trail: LiteralTrail | undefined): string {
  if (trail === undefined) return JSON.stringify(value);
  const kept = keptIn(value, trail);
  if (kept.size === 0) return JSON.stringify(value);
  return JSON.stringify(value, function (this: unknown, key: string, v: unknown) {
    if (typeof v !== 'number') return v;
    const literal = kept.get(this as object)?.get(key);
    return literal === undefined ? v : rawJSON(literal);
  });
}
