/**
 * Parsing untrusted text into JSON values without prototype pollution. Tool results are attacker-controlled
 * text: a `__proto__` key must never become a prototype, and a `constructor.prototype` chain must never
 * survive into a value that later code might merge.
 */
import sjp from 'secure-json-parse';
import type { Json } from '../json.js';

const OPTIONS = { protoAction: 'remove', constructorAction: 'remove' } as const;

/** Keys dropped from every value built from untrusted input. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);

/** The parse result: `ok` with the value, or not ok (never throws). */
export type ParseResult = { readonly ok: true; readonly value: Json } | { readonly ok: false };

const FAIL: ParseResult = { ok: false };

/** Strict JSON parse of untrusted text; `__proto__` and `constructor.prototype` keys are removed. */
export function parseJson(text: string): ParseResult {
  try {
    // Without a unicode escape a key can only spell `__proto__` / `constructor` literally: three native
    // substring scans let most texts skip secure-json-parse's two regular expressions over the whole text
    // (and its BOM strip: a text starting with one takes the library's path).
    if (text.charCodeAt(0) !== 0xfeff && !text.includes('\\u') && !text.includes('__proto__') && !text.includes('constructor')) return { ok: true, value: JSON.parse(text) as Json };
    return { ok: true, value: sjp.parse(text, null, OPTIONS) as Json };
  } catch {
    return FAIL;
  }
}

/**
 * A deep copy of a value from a non-JSON parser (yaml, regex) keeping only JSON data: own enumerable keys
 * except the forbidden ones, plain objects only. Non-JSON leaves (Date, undefined, functions) are dropped or
 * stringified the way JSON.stringify would.
 */
export function sanitize(value: unknown, depth = 0): Json | undefined {
  if (depth > 512) return undefined;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => sanitize(item, depth + 1) ?? null);
  if (typeof value === 'object') {
    const out: { [key: string]: Json } = {};
    for (const key of Object.keys(value)) {
      if (FORBIDDEN.has(key)) continue;
      const item = sanitize((value as Record<string, unknown>)[key], depth + 1);
      if (item !== undefined) out[key] = item;
    }
    return out;
  }
  return undefined;
}

/**
 * Set `key` on a plain object without ever invoking the `__proto__` setter: the forbidden keys are dropped,
 * and for every other key plain assignment creates an own property (defineProperty per field would push
 * objects into V8's slow dictionary mode, which then slows validation and coercion too).
 */
export function setField(target: { [key: string]: Json }, key: string, value: Json): void {
  if (FORBIDDEN.has(key)) return;
  target[key] = value;
}
