/**
 * The last results of a tool as the console shows them: failures with their reasons (each split into the JSON
 * pointer it names and its message), successes with the structuredContent the client got. Kept cheaply on
 * the call's path (the text cut at `maxTextBytes`, the argument strings kept beside it); scrubbed only when
 * read, of the call's argument values as recordings are (src/record/scrub.ts) and of the config's secrets.
 */
import { isJsonObject, type Json, type JsonObject } from '../json.js';
import { argumentStrings, textScrubber } from '../record/scrub.js';
import { textsOf } from '../retrofit/content.js';
import type { Failure, Reason, Success } from './wire.js';

/**
 * A reason as the engine writes it (src/retrofit/validate.ts describeErrors): `<pointer> <message>`, the
 * pointer `/` for the root; other reasons (a reading's notes, "and N more") name no pointer.
 */
export function parseReason(reason: string): Reason {
  if (!reason.startsWith('/')) return { pointer: null, message: reason };
  const space = reason.indexOf(' ');
  const pointer = space === -1 ? reason : reason.slice(0, space);
  const message = space === -1 ? '' : reason.slice(space + 1);
  return { pointer: pointer === '/' ? '' : pointer, message };
}

/** What is kept of one result on the call's path (unscrubbed; never leaves the process as is). */
export interface KeptSample {
  readonly at: number;
  readonly outcome: string;
  readonly format: string | null;
  readonly mode: string;
  readonly revision: string;
  /** The result's text, cut; null when the result was not at hand (a worker read its raw bytes). */
  readonly text: string | null;
  readonly truncated: boolean;
  /** The call's argument strings, to scrub the text of when it is read. */
  readonly args: readonly string[];
  readonly reasons?: readonly string[];
  /** What the client got as structuredContent (kept only when the text was not cut, and it is short: jsonSizeWithin). */
  readonly structured?: Json;
  /** The length of `structured`'s JSON, roughly (jsonSizeWithin): what it weighs against the samples' budget. */
  readonly structuredSize?: number;
}

/**
 * The length of `value`'s JSON, roughly (its strings and keys, a few characters per member and scalar), or
 * undefined as soon as it passes `max`. The structuredContent a success keeps is the upstream's to size, and
 * its text may be short or absent (a native result): it is weighed for itself, walked only up to `max`
 * (iteratively: the value may nest as deep as a peer made it).
 */
export function jsonSizeWithin(value: Json, max: number): number | undefined {
  let size = 0;
  const stack: Json[] = [value];
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    if (typeof v === 'string') size += v.length + 2;
    else if (Array.isArray(v)) {
      size += 2;
      for (const item of v) {
        if ((size += 1) > max) return undefined;
        stack.push(item);
      }
    } else if (isJsonObject(v)) {
      size += 2;
      for (const [key, item] of Object.entries(v)) {
        if ((size += key.length + 4) > max) return undefined;
        stack.push(item);
      }
    } else size += 5;
    if (size > max) return undefined;
  }
  return size;
}

/** `text` cut at `max` UTF-8 bytes (never inside a character). */
export function cut(text: string, max: number): { text: string; truncated: boolean } {
  // A string of n UTF-16 units is at most 3n bytes: most texts need no count.
  if (text.length * 3 <= max || Buffer.byteLength(text) <= max) return { text, truncated: false };
  const head = Buffer.from(text.slice(0, max)).subarray(0, max).toString('utf8');
  return { text: head.replace(/\uFFFD$/, ''), truncated: true };
}

/** Most argument strings kept per sample (as the recorder searches). */
const MAX_ARGS = 64;

/** The argument strings of a call, longest first, bounded. */
export function keptArguments(args: Json | undefined): string[] {
  if (args === undefined) return [];
  const all = argumentStrings(args).filter((s) => s !== '');
  return all.length <= MAX_ARGS ? all : all.sort((a, b) => b.length - a.length).slice(0, MAX_ARGS);
}

/** The text of a result (its text blocks, one per line), cut; null without a result. */
export function keptText(result: JsonObject | undefined, max: number): { text: string | null; truncated: boolean } {
  if (!result) return { text: null, truncated: false };
  // Joined only up to the cut: a 10 MB result (a worker's) costs no 10 MB string here.
  let text = '';
  for (const block of textsOf(result)) {
    text += text === '' ? block.slice(0, max + 1) : `\n${block.slice(0, max + 1)}`;
    if (text.length > max) return cut(text, max);
  }
  return cut(text, max);
}

/** Scrubs a kept sample when it is read: its argument values, then the config's secrets. */
function scrubberFor(sample: KeptSample, secrets: (text: string) => string): (text: string) => string {
  const args = textScrubber(sample.args);
  return (text) => secrets(args(text));
}

export function failureView(sample: KeptSample, secrets: (text: string) => string): Failure {
  const scrub = scrubberFor(sample, secrets);
  return {
    at: sample.at,
    outcome: sample.outcome,
    format: sample.format,
    mode: sample.mode,
    revision: sample.revision,
    text: sample.text === null ? null : scrub(sample.text),
    truncated: sample.truncated,
    reasons: (sample.reasons ?? []).map((r) => {
      const reason = parseReason(r);
      return { pointer: reason.pointer, message: scrub(reason.message) };
    }),
  };
}

export function successView(sample: KeptSample, secrets: (text: string) => string): Success {
  const scrub = scrubberFor(sample, secrets);
  let structuredContent: Json | null = null;
  if (sample.structured !== undefined) {
    try {
      // Scrubbed as text: a secret inside any string of it goes, the structure stays.
      const parsed: unknown = JSON.parse(scrub(JSON.stringify(sample.structured)));
      structuredContent = isJsonObject(parsed) || Array.isArray(parsed) || typeof parsed !== 'object' ? (parsed as Json) : null;
    } catch {
      structuredContent = null;
    }
  }
  return { at: sample.at, format: sample.format, mode: sample.mode, revision: sample.revision, text: sample.text === null ? null : scrub(sample.text), truncated: sample.truncated, structuredContent };
}
