import { describe, expect, it } from 'vitest';
import { extractJson } from '../../../../src/retrofit/extract/json.js';

describe('json', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['  \n[1, 2]\n', [1, 2]],
    ['"text"', 'text'],
    ['42', 42],
    ['', undefined],
    ['{"a":1', undefined],
    ['hello', undefined],
  ])('%j → %j', (text, expected) => {
    expect(extractJson(text)).toEqual(expected);
  });
});
