/**
 * Configured patterns: which run on RE2 in place (and give exactly what the JavaScript RegExp gives), and
 * which keep the JavaScript RegExp on the guard, with the reason the pipeline reads from `isolate`.
 */
import fc from '../../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { ALL_MATCHES, compilePattern, matchEach, matchPattern } from '../../../../src/retrofit/extract/pattern.js';
import { toRe2 } from '../../../../src/retrofit/extract/re2-syntax.js';

function jsMatches(source: string, flags: string, text: string): unknown[] {
  return Array.from(text.matchAll(new RegExp(source, `${flags}g`)), (m) => (m.groups ? { text: m[0], groups: { ...m.groups } } : { text: m[0] }));
}

describe('compilePattern', () => {
  it.each([
    ['(?<city>\\w+): (?<t>-?\\d+)', ''],
    ['^\\[(?<kind>FILE|DIR)\\] (?<name>.+)$', 'm'],
    ['(?<a>[\\s\\d]+)', ''],
    ['\\u00e9(?<x>.)', 'i'],
    ['(?<e>\\u{1F600})', 'u'],
  ])('RE2 runs %s (flags %s)', (source, flags) => {
    const p = compilePattern(source, flags, true);
    expect(p.re2).toBeDefined();
  });

  it.each([
    ['a(?=b)', 'pattern uses lookahead, which RE2 cannot run'],
    ['(?<!a)b', 'pattern uses lookbehind, which RE2 cannot run'],
    ['(a)\\1', 'pattern uses a backreference, which RE2 cannot run'],
    ['(?<n>a)\\k<n>', 'pattern uses a backreference, which RE2 cannot run'],
    ['[^]', 'pattern uses an empty class ([] or [^]), which RE2 reads otherwise'],
    ['\\a', 'pattern uses the escape \\a, which RE2 reads otherwise'],
  ])('keeps a JavaScript RegExp for %s: %s', (source, reason) => {
    const p = compilePattern(source, '', false);
    expect(p.re2).toBeUndefined();
    expect(p.isolate).toBe(reason);
  });

  // Regression (review of the retrofit engine, 2026-12-07): every match of `(?<name>\w+)(?: \((?<note>[^)]*)\))?` in
  // `w (w (w (…` reads on to the end of the text, each of them: 15 KB held the event loop for 5 s. RE2 runs it, on
  // the isolation worker, under its deadline; one match alone stays linear and inline.
  it('isolates a pattern RE2 runs when every match is asked for (all: true), not for the first alone', () => {
    const source = '(?<name>\\w+)(?: \\((?<note>[^)]*)\\))?';
    const every = compilePattern(source, '', true);
    expect(every.re2).toBeDefined();
    expect(every.isolate).toBe(ALL_MATCHES);
    const first = compilePattern(source, '', false);
    expect(first.re2).toBeDefined();
    expect(first.isolate).toBeUndefined();
  });

  it('spells out JavaScript meanings RE2 reads otherwise', () => {
    expect(toRe2('a.b\\s', '')).toMatchObject({ ok: true, source: expect.stringContaining('[^\\n\\r\\x{2028}\\x{2029}]') });
    expect(toRe2('[\\b]', '')).toEqual({ ok: true, source: '[\\x{8}]', lineAnchors: false });
    expect(toRe2('\\ud83d\\ude00', '')).toEqual({ ok: true, source: '\\x{1F600}', lineAnchors: false });
    expect(toRe2('^a$', 'm')).toMatchObject({ ok: true, lineAnchors: true });
  });

  it('line anchors under m: RE2 for \\n texts, the JavaScript RegExp when \\r is in the text (same result)', () => {
    const p = compilePattern('^(?<k>\\w+): (?<v>.*)$', 'm', true);
    expect(p.isolate).toMatch(/^pattern anchors lines/);
    const crlf = 'a: 1\r\nb: 2\r\n';
    expect(matchPattern(p, crlf, true)).toEqual({ ok: true, matches: jsMatches(p.js.source, 'm', crlf) });
    expect(matchPattern(p, 'a: 1\nb: 2', true)).toEqual({ ok: true, matches: [{ text: 'a: 1', groups: { k: 'a', v: '1' } }, { text: 'b: 2', groups: { k: 'b', v: '2' } }] });
  });

  it('matchEach: the first match per text, undefined where none', () => {
    const p = compilePattern('(?<n>\\d+)', '', false);
    expect(matchEach(p, ['a1', 'b', 'c22'])).toEqual({ ok: true, matches: [{ text: '1', groups: { n: '1' } }, undefined, { text: '22', groups: { n: '22' } }] });
  });

  // Differential: on patterns built from pieces whose meanings differ between the dialects, RE2 (translated)
  // and JavaScript agree on every match and group.
  const piece = fc.constantFrom('^', '$', 'a', 'b', '.', '\\s', '\\S', '\\d', '\\w', '\\b', '[a-c]', '[^a\\s]', '\\u00a0', ' ', '\\.', 'x*', '(?:ab|b)', '[\\b]', '\\t');
  const patternArb = fc.array(piece, { minLength: 1, maxLength: 5 }).map((ps) => `(?<g>${ps.join('')})`);
  const textArb = fc.string({ unit: fc.constantFrom('a', 'b', 'c', ' ', '\u00a0', '\u2028', '\r', '\n', '\t', '\v', '1', '.', '\b', '\u3000', 'é') });
  it('RE2 agrees with JavaScript on random patterns and texts', () => {
    fc.assert(
      fc.property(patternArb, fc.constantFrom('', 'i', 's', 'm', 'u'), textArb, (source, flags, text) => {
        const p = compilePattern(source, flags, true);
        expect(p.re2).toBeDefined();
        expect(matchPattern(p, text, true)).toEqual({ ok: true, matches: jsMatches(source, flags, text) });
      }),
      { numRuns: 500 },
    );
  });
});
