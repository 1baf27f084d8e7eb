import fc from '../../helpers/fast-check.js';
import { describe, expect, test } from 'vitest';
import { expandString } from '../../../src/config/expand.js';

describe('expandString', () => {
  const env = { A: 'alpha', EMPTY: '', N: '42' };

  test.each([
    ['no dollar at all', 'plain', 'plain'],
    ['a set variable', 'x-${A}-y', 'x-alpha-y'],
    ['two variables', '${A}${N}', 'alpha42'],
    ['a default for an unset variable', '${UNSET:-fallback}', 'fallback'],
    ['a default for an empty variable', '${EMPTY:-fallback}', 'fallback'],
    ['an empty default', '${UNSET:-}', ''],
    ['a set variable ignores its default', '${A:-other}', 'alpha'],
    ['an empty but set variable', '[${EMPTY}]', '[]'],
    ['the $${ escape', '$${A} and ${A}', '${A} and alpha'],
    ['a lone dollar', 'cost: $5 $$', 'cost: $5 $$'],
    ['a regex end anchor', '^\\d+$', '^\\d+$'],
  ])('%s', (_name, input, want) => {
    const x = expandString(input, env);
    expect(x.problems).toEqual([]);
    expect(x.value).toBe(want);
  });

  test('values from the environment (not defaults) are reported as secrets', () => {
    expect(expandString('${A}:${UNSET:-d}:${N}', env).fromEnv).toEqual(['alpha', '42']);
    expect(expandString('$${A}', env)).toMatchObject({ expanded: false, fromEnv: [] });
  });

  test('an unset variable without a default is a problem naming it', () => {
    const x = expandString('Bearer ${TOKEN}', env);
    expect(x.problems).toEqual(['environment variable TOKEN is not set']);
  });

  test.each(['${A', '${1A}', '${A-b}', '${}', '${A:b}'])('malformed %s is a problem', (input) => {
    expect(expandString(input, env).problems[0]).toMatch(/^malformed expression/);
  });
});

describe('expandString properties', () => {
  const text = fc.string({ unit: fc.constantFrom('$', '{', '}', 'A', ':', '-', 'x', ' ') });

  test('escaping every ${ as $${ gives back the literal text, with no problems and no secrets', () => {
    fc.assert(
      fc.property(text, (s) => {
        const x = expandString(s.replaceAll('${', () => '$${'), { A: 'secret' });
        expect(x.value).toBe(s);
        expect(x.problems).toEqual([]);
        expect(x.fromEnv).toEqual([]);
      }),
    );
  });

  test('text without ${ is never changed', () => {
    fc.assert(
      fc.property(text.filter((s) => !s.includes('${')), (s) => {
        expect(expandString(s, { A: 'secret' }).value).toBe(s);
      }),
    );
  });
});
