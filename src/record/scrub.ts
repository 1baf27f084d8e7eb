/**
 * What a recording must not hold: the call's argument values, which a result often echoes ("Weather for
 * <city>", a path, a query), and the upstream's own secrets. Redaction never changes a sample's structure,
 * since `infer` learns from it: keys, numbers, booleans and null are never touched, only strings —
 * - a string value of the result equal to an argument value or a secret becomes REDACTED (unless it reads as
 *   a JSON literal: a text block `42` is a number);
 * - inside a string (a text block that holds JSON, or prose), a quoted JSON string equal to one becomes
 *   "REDACTED" unless it is a key (followed by `:`); any other quoted string that is no key is scrubbed as a
 *   string of its own (and quoted again); elsewhere, a whole-word occurrence of one becomes REDACTED unless it
 *   starts a `key:` line, is shorter than MIN_WORD characters, reads as a JSON literal (`true`, `1`,
 *   `null`: replacing those would change a value's type, not hide it), or is an argument without a letter or
 *   digit (an indent: replacing it would break the text's JSON or YAML).
 * A bare word, not the logs' `[Redacted]`: in a `city: Paris` report the latter would read back as a YAML
 * list and teach infer the wrong type; infer takes it for "a string" (never an enum member).
 *
 * Secrets (recordSecrets): only values that are secrets by their name — an `env:` variable or header whose
 * name says TOKEN, KEY, SECRET, PASSWORD, AUTH, CREDENTIAL, COOKIE or SESSION, or matches one of the
 * upstream's `record.secretNames` — of that upstream, and the gateway's bearer tokens; never shorter than
 * MIN_SECRET characters. A switch like `DEBUG: "true"` is no secret.
 */
import type { GatewayConfig, UpstreamConfig } from '../config/types.js';
import { isJsonObject, type Json, type JsonObject } from '../json.js';

/** What a scrubbed string shows in place of a secret or an argument value. */
export const CENSOR = 'REDACTED';
/** Shortest value replaced inside a longer string (shorter ones only where a whole string equals them). */
export const MIN_WORD = 4;
/** Shortest value taken for a secret. */
export const MIN_SECRET = 8;
/**
 * Most argument strings searched for per text (the longest ones; the whole-word pattern grows with each). A
 * recording never keeps one unsearched: a call with more is not recorded (scrubResult).
 */
export const MAX_ARGUMENT_STRINGS = 64;
/** Deepest argument nesting searched for strings; a recorded call's arguments must nest no deeper. */
export const MAX_ARGUMENT_DEPTH = 64;

const SECRET_NAME = /TOKEN|KEY|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL|COOKIE|SESSION/i;
const LITERAL = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)$/;

/** Every string inside an argument value (nested objects and arrays included). */
export function argumentStrings(args: Json | undefined, out: string[] = [], depth = 0): string[] {
  if (typeof args === 'string') out.push(args);
  else if (depth < MAX_ARGUMENT_DEPTH && Array.isArray(args)) for (const v of args) argumentStrings(v, out, depth + 1);
  else if (depth < MAX_ARGUMENT_DEPTH && isJsonObject(args)) for (const v of Object.values(args)) argumentStrings(v, out, depth + 1);
  return out;
}

/** True when `args` holds a container MAX_ARGUMENT_DEPTH levels down, whose strings argumentStrings leaves out. */
function nestsTooDeep(args: Json | undefined, depth = 0): boolean {
  if (!Array.isArray(args) && !isJsonObject(args)) return false;
  if (depth >= MAX_ARGUMENT_DEPTH) return true;
  return (Array.isArray(args) ? args : Object.values(args)).some((v) => nestsTooDeep(v, depth + 1));
}

/** The argument names of a call (top level), for the recording. */
export function argumentNames(args: Json | undefined): string[] {
  return isJsonObject(args) ? Object.keys(args) : [];
}

/** A `record.secretNames` entry as a whole-name, case-insensitive pattern (`*` any run). */
function namePattern(glob: string): RegExp {
  return new RegExp(`^${glob.split('*').map(escapeRegExp).join('.*')}$`, 'i');
}

/** The values a recording of `upstream` hides as secrets (see the module comment). */
export function recordSecrets(upstream: UpstreamConfig, config: Pick<GatewayConfig, 'auth'>): string[] {
  const named = upstream.kind === 'stdio' ? upstream.env : upstream.headers;
  const configured = (upstream.record?.secretNames ?? []).map(namePattern);
  const isSecret = (name: string): boolean => SECRET_NAME.test(name) || configured.some((p) => p.test(name));
  const out: string[] = [];
  for (const [name, value] of Object.entries(named)) if (isSecret(name) && value.length >= MIN_SECRET) out.push(value);
  for (const token of config.auth?.bearerTokens ?? []) if (token.length >= MIN_SECRET) out.push(token);
  return out;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The distinct non-empty strings of `values`, longest first. */
function distinct(values: readonly string[]): string[] {
  return [...new Set(values.filter((v) => v !== ''))].sort((a, b) => b.length - a.length);
}

/** The replacer of one sample: its values, and the whole-word pattern for those long enough. */
class Scrubber {
  readonly #values: ReadonlySet<string>;
  readonly #words: RegExp | undefined;

  /** `secrets` are all searched for; `args`, the longest MAX_ARGUMENT_STRINGS of them. */
  constructor(secrets: readonly string[], args: readonly string[]) {
    const kept = distinct([...secrets, ...distinct(args).slice(0, MAX_ARGUMENT_STRINGS)]);
    this.#values = new Set(kept);
    const secret = new Set(secrets);
    // An argument without a letter or digit (an indent, a separator) is layout: replaced inside a text, it
    // would break the JSON or YAML that text lays out. A secret is hidden whatever it is made of.
    const words = kept.filter((v) => v.length >= MIN_WORD && !LITERAL.test(v.trim()) && (secret.has(v) || /[\p{L}\p{N}]/u.test(v)));
    // Whole words only: not inside a longer word, number or name.
    this.#words = words.length === 0 ? undefined : new RegExp(`(?<![\\p{L}\\p{N}_])(?:${words.map(escapeRegExp).join('|')})(?![\\p{L}\\p{N}_])`, 'gu');
  }

  get empty(): boolean {
    return this.#values.size === 0;
  }

  /**
   * A string of the result: replaced whole when it equals a value (unless it reads as a JSON literal: a text
   * block `42` holds a number), else within (see the module comment).
   */
  string(text: string): string {
    if (this.#values.has(text) && !LITERAL.test(text.trim())) return CENSOR;
    let out = '';
    let i = 0;
    while (i < text.length) {
      const quote = text.indexOf('"', i);
      if (quote === -1) {
        out += this.#prose(text, i, text.length);
        break;
      }
      out += this.#prose(text, i, quote);
      const end = closingQuote(text, quote);
      if (end === -1) {
        // A lone quote (prose): the text goes on after it.
        out += '"';
        i = quote + 1;
        continue;
      }
      out += this.#quoted(text, quote, end);
      i = end + 1;
    }
    return out;
  }

  /**
   * A quoted JSON string `text[start..end]`, unless it is a key: "REDACTED" when its value is one; else its value
   * scrubbed as any string is (a whole word, a quoted string inside it) and quoted again. A string value in a
   * text block's JSON often quotes an argument or a secret in a sentence (`"greeting": "Hello Grace"`, a
   * `"Bearer <token>"` header echoed back).
   */
  #quoted(text: string, start: number, end: number): string {
    const token = text.slice(start, end + 1);
    let value: unknown;
    try {
      value = JSON.parse(token);
    } catch {
      // No JSON string (`"C:\Users\Grace"` in prose): prose, quotes and all.
      return this.#prose(text, start, end + 1);
    }
    if (typeof value !== 'string' || /^\s*:/.test(text.slice(end + 1, end + 33))) return token;
    if (this.#values.has(value)) return `"${CENSOR}"`;
    // Shorter than the token (its quotes at least): the nesting of quoted strings in quoted strings ends.
    const inner = this.string(value);
    return inner === value ? token : JSON.stringify(inner);
  }

  /** Text outside quoted strings: whole words replaced, except a `key:` at the start of a line. */
  #prose(text: string, start: number, end: number): string {
    const part = text.slice(start, end);
    if (!this.#words) return part;
    return part.replace(this.#words, (match, offset: number) => {
      const at = start + offset;
      const keyPosition = startsLine(text, at) && /^\s*:/.test(text.slice(at + match.length, at + match.length + 32));
      return keyPosition ? match : CENSOR;
    });
  }
}

/**
 * True when only blanks, `-` and `*` stand between the start of `at`'s line and `at` (a `key:` or list item's
 * key position). Read backwards from `at`, so a long line costs each match only its indent, not the line.
 */
function startsLine(text: string, at: number): boolean {
  for (let i = at - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === 0x0a) return true;
    if (c !== 0x2d && c !== 0x2a && !/\s/.test(text[i]!)) return false;
  }
  return true;
}

/** Where the JSON string opened at `start` closes (a backslash escapes the next character); -1 if it does not. */
function closingQuote(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
    else if (c === 0x0a) return -1;
  }
  return -1;
}

function scrubValue(value: Json, scrubber: Scrubber): Json {
  if (typeof value === 'string') return scrubber.string(value);
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, scrubber));
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) {
    // Keys are never touched. defineProperty: a key may be `__proto__` (values parsed by the gateway have none).
    Object.defineProperty(out, key, { value: scrubValue(v, scrubber), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/**
 * A copy of `result` with the call's argument strings and the upstream's secrets replaced (see the module
 * comment); undefined when the arguments hold more than MAX_ARGUMENT_STRINGS distinct strings or nest deeper
 * than MAX_ARGUMENT_DEPTH, since a value not searched for would be kept (the caller does not record such a
 * call). Throws RangeError on values nested deeper than the stack allows (the caller counts that sample as
 * not written).
 */
export function scrubResult(result: JsonObject, secrets: readonly string[], args: Json | undefined): JsonObject | undefined {
  const values = distinct(argumentStrings(args));
  if (values.length > MAX_ARGUMENT_STRINGS || nestsTooDeep(args)) return undefined;
  const scrubber = new Scrubber(secrets, values);
  return scrubber.empty ? result : (scrubValue(result, scrubber) as JsonObject);
}

/**
 * Replaces `values` in a text as recordings replace argument values in prose (whole words, quoted strings);
 * the longest MAX_ARGUMENT_STRINGS of them.
 */
export function textScrubber(values: readonly string[]): (text: string) => string {
  const scrubber = new Scrubber([], values);
  return scrubber.empty ? (text) => text : (text) => scrubber.string(text);
}
