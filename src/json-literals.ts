/**
 * A message written again keeps the number literals of the message it was read from. The gateway parses an
 * upstream's message with JSON.parse and writes the rewritten or reshaped one with JSON.stringify, so a literal
 * a double cannot hold (`12345678901234567890`, `0.1000000000000000055511151231257827`) would go out as the
 * double's shortest text in parts nothing changed (result._meta, a tool list's `maximum`). Only when the
 * original text holds such a literal (the cheap scan `anyInexactToken`: most texts pay only that) is it read
 * again, with a reviver that sees each literal's source text (`trailOf`); `stringifyKept` then writes each of
 * those literals verbatim (JSON.rawJSON) wherever the new message, on the same path, still holds the number
 * the literal reads as. A value the rewrite created or changed is written as it is. Response ids are kept by
 * src/jsonrpc/id-literal.ts too (batches, a worker's bytes), which finds them already exact. It sits at the
 * bottom of the layers, beside json.ts: the retrofit, the reshaping of src/protocol/modern.ts and the routing
 * of a shared child's batches (src/upstream/shared-ids.ts, src/pipeline/offload/demux.ts) all write messages again.
 */
import { BIG_EXPONENT_G, isExactLiteral, isPlainExactDecimal, JSON_NUMBER_RE, longDigitRun } from './exact-number.js';

function isNumberStart(c: number): boolean {
  return c === 0x2d || (c >= 0x30 && c <= 0x39);
}

/** A char that may continue a token: a literal followed by one is not a JSON number and is left alone. */
export function continuesToken(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2e || c === 0x2b || c === 0x2d || c === 0x5f;
}

/**
 * True when the token `text[from, to)` (a maximal run of token chars) may be a literal a double cannot hold:
 * 16 or more characters, or an exponent (which can overflow or underflow). Without an exponent, 15
 * characters hold at most 15 significant digits and no subnormal, which every double prints back.
 */
function needsCheck(text: string, from: number, to: number): boolean {
  if (to - from >= 16) return true;
  for (let k = from + 1; k < to; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x65 || c === 0x45) return true;
  }
  return false;
}

/** True when the token `text[from, to)` is a JSON number literal a double cannot hold exactly. */
export function isInexactToken(text: string, from: number, to: number): boolean {
  if (!isNumberStart(text.charCodeAt(from)) || !needsCheck(text, from, to) || isPlainExactDecimal(text, from, to)) return false;
  const literal = text.slice(from, to);
  const value = Number(literal);
  if (String(value) === literal) return false; // a shortest-round-trip printer's double (JavaScript's own)
  return JSON_NUMBER_RE.test(literal) && !isExactLiteral(literal, value);
}

/** The maximal token run around `at`: [start, end). */
function tokenAround(text: string, at: number): [number, number] {
  let start = at;
  while (start > 0 && continuesToken(text.charCodeAt(start - 1))) start--;
  let end = at + 1;
  while (end < text.length && continuesToken(text.charCodeAt(end))) end++;
  return [start, end];
}

/**
 * True when some token of `text`, inside a string or not, is an inexact number literal. Looks only around
 * the few places that can hold one (long digit runs, three-digit exponents), so a text whose long numbers
 * are all exact (a JavaScript server's doubles, `0.30000000000000004`) costs a fraction of a parse; only a
 * yes pays a second reading: the string-aware quoting of src/retrofit/extract/exact-json.ts, or trailOf below
 * for a message written again.
 */
export function anyInexactToken(text: string): boolean {
  for (let at = longDigitRun(text, 0); at !== -1; ) {
    const [start, end] = tokenAround(text, at);
    if (isInexactToken(text, start, end)) return true;
    at = longDigitRun(text, end);
  }
  BIG_EXPONENT_G.lastIndex = 0;
  for (let m = BIG_EXPONENT_G.exec(text); m !== null; m = BIG_EXPONENT_G.exec(text)) {
    const [start, end] = tokenAround(text, m.index);
    if (isInexactToken(text, start, end)) return true;
    BIG_EXPONENT_G.lastIndex = end;
  }
  return false;
}

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

/** `text`'s trail (trailOf), read when first asked for, then kept: a text nothing is written again from pays nothing. */
export function lazyTrail(text: string): () => LiteralTrail | undefined {
  let trail: LiteralTrail | undefined | null = null;
  return () => (trail === null ? (trail = trailOf(text)) : trail);
}

/** The trail at `path` under `trail` (of a member of the message it is the trail of), when a literal lies there. */
export function trailAt(trail: LiteralTrail | undefined, ...path: string[]): LiteralTrail | undefined {
  let at = trail;
  for (const key of path) at = at?.children.get(key);
  return at;
}

/** The trail of a new object that holds, under `key`, the value `trail` is the trail of (a message made around it). */
export function trailUnder(key: string, trail: LiteralTrail | undefined): LiteralTrail | undefined {
  return trail && { array: false, literals: new Map(), children: new Map([[key, trail]]) };
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
