/** Property: redaction never changes a sample's structure (issue 25), whatever the arguments are. */
import { describe, expect, it } from 'vitest';
import type { Json, JsonObject } from '../../../src/json.js';
import { CENSOR, scrubResult, textScrubber } from '../../../src/record/scrub.js';

/** A small seeded generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['name', 'true', 'false', 'null', '1', '42', 'Grace', 'Reykjavik', 'a b', 'entityType', 'x"y', 'line\nbreak', 'ok', 'value: 3', 'key'];

function value(rand: () => number, depth: number): Json {
  const pick = rand();
  if (depth > 3 || pick < 0.3) return WORDS[Math.floor(rand() * WORDS.length)]!;
  if (pick < 0.4) return Math.floor(rand() * 100);
  if (pick < 0.5) return rand() < 0.5;
  if (pick < 0.55) return null;
  if (pick < 0.75) return Array.from({ length: Math.floor(rand() * 4) }, () => value(rand, depth + 1));
  const out: JsonObject = {};
  for (let i = Math.floor(rand() * 4); i > 0; i--) out[WORDS[Math.floor(rand() * WORDS.length)]!] = value(rand, depth + 1);
  return out;
}

/** The structure of a value: every string the same, everything else as it is. */
function shape(v: Json): Json {
  if (typeof v === 'string') return 'S';
  if (Array.isArray(v)) return v.map(shape);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, shape(x)]));
  return v;
}

describe('scrubResult', () => {
  it('keeps the structure of structuredContent and of the JSON inside text blocks, for any arguments', () => {
    const rand = random(20261202);
    let redacted = 0;
    for (let n = 0; n < 2000; n++) {
      const payload = value(rand, 0);
      const args: JsonObject = { q: WORDS[Math.floor(rand() * WORDS.length)]!, r: [WORDS[Math.floor(rand() * WORDS.length)]!] };
      const indent = rand() < 0.5 ? 2 : undefined;
      const result: JsonObject = { content: [{ type: 'text', text: JSON.stringify(payload, null, indent) }], structuredContent: { value: payload } };
      const scrubbed = scrubResult(result, [], args)!;
      const text = (scrubbed.content as { text: string }[])[0]!.text;
      expect(shape(JSON.parse(text) as Json)).toEqual(shape(payload));
      expect(shape(scrubbed.structuredContent as Json)).toEqual(shape({ value: payload }));
      if (text.includes(CENSOR)) redacted++;
    }
    // The property is not vacuous: many samples had something redacted (most arguments drawn are keys or literals).
    expect(redacted).toBeGreaterThan(100);
  });

  it('hides a value in a logged line that is JSON as it does in prose (a child\'s stderr, a trace attribute)', () => {
    const hide = textScrubber(['Bartholomew']);
    expect(hide('plain greeting Bartholomew now')).toBe('plain greeting REDACTED now');
    expect(hide('{"event":"greeting Bartholomew now","Bartholomew":true}')).toBe('{"event":"greeting REDACTED now","Bartholomew":true}');
  });

  it('regression: a long line naming an argument often took time growing with the square of its length (the event loop stood still)', () => {
    // Each match looked for its line's start from the match back: 64K matches on one 1 MiB line, seconds.
    const text = 'Paris is nice. '.repeat(70_000);
    const started = performance.now();
    const scrubbed = scrubResult({ content: [{ type: 'text', text }] }, [], { city: 'Paris' })!;
    expect(performance.now() - started).toBeLessThan(3000);
    expect((scrubbed.content as { text: string }[])[0]!.text).toBe('REDACTED is nice. '.repeat(70_000));
    // A key at the start of a line, indented or a list item's, is kept; elsewhere the word goes.
    expect(textScrubber(['Paris'])('Paris: 1\n  - Paris: 2\n  * Paris : 3\nx Paris: 4\n- Paris')).toBe('Paris: 1\n  - Paris: 2\n  * Paris : 3\nx REDACTED: 4\n- REDACTED');
  });

  it('regression: an argument made of blanks (an indent) was replaced in a text\'s layout, and its JSON no longer parsed', () => {
    const value = { a: { b: [1, 2], c: 'x' } };
    for (const indent of ['    ', '\t\t\t\t', '      ']) {
      const text = JSON.stringify(value, null, indent);
      const scrubbed = scrubResult({ content: [{ type: 'text', text }], structuredContent: { indent } }, [], { indent })!;
      expect(JSON.parse((scrubbed.content as { text: string }[])[0]!.text)).toEqual(value);
      // Where a whole string is the argument, it is still hidden.
      expect(scrubbed.structuredContent).toEqual({ indent: CENSOR });
    }
    // A secret is hidden whatever it is made of.
    expect((scrubResult({ content: [{ type: 'text', text: 'pass: ~!@#$%^&*() ok' }] }, ['~!@#$%^&*()'], {})!.content as { text: string }[])[0]!.text).toBe('pass: REDACTED ok');
  });
});
