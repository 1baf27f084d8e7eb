import { describe, expect, test } from 'vitest';
import { editDistance, suggestKey } from '../../src/hint.js';

describe('editDistance', () => {
  test.each([
    ['', '', 0],
    ['abc', '', 3],
    ['kitten', 'sitting', 3],
    ['ouputSchema', 'outputSchema', 1],
    ['tiemoutMs', 'timeoutMs', 1], // one adjacent swap
    ['abc', 'abc', 0],
  ])('%s → %s = %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe('suggestKey', () => {
  const upstreamKeys = ['url', 'sse', 'command', 'args', 'env', 'cwd', 'headers', 'timeoutMs', 'path', 'tools'];
  test.each([
    ['timeout', 'timeoutMs'], // prefix
    ['timeoutms', 'timeoutMs'], // case only
    ['tool', 'tools'],
    ['comand', 'command'],
    ['header', 'headers'],
    ['urls', 'url'],
  ])('%s → %s', (typo, want) => {
    expect(suggestKey(typo, upstreamKeys)).toBe(want);
  });

  test('nothing close enough gives no hint', () => {
    expect(suggestKey('banana', upstreamKeys)).toBeUndefined();
    expect(suggestKey('x', ['outputSchema'])).toBeUndefined();
  });

  test('the closest of several candidates wins', () => {
    expect(suggestKey('outputSchemaFil', ['outputSchema', 'outputSchemaFile'])).toBe('outputSchemaFile');
  });
});
