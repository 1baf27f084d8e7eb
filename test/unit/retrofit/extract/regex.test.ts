import { describe, expect, it } from 'vitest';
import { extractRegex } from '../../../../src/retrofit/extract/regex.js';

describe('regex', () => {
  it('maps named groups of the first match to fields', () => {
    expect(extractRegex('Paris: 21\nOslo: -3', /(?<city>\w+): (?<t>-?\d+)/, false)).toEqual({ city: 'Paris', t: '21' });
  });
  it('with all: every match as an array; none → []', () => {
    expect(extractRegex('Paris: 21\nOslo: -3', /(?<city>\w+): (?<t>-?\d+)/g, true)).toEqual([{ city: 'Paris', t: '21' }, { city: 'Oslo', t: '-3' }]);
    expect(extractRegex('nothing', /(?<city>\w+): (?<t>-?\d+)/g, true)).toEqual([]);
  });
  it('without all and no match: nothing; without groups: the matched text', () => {
    expect(extractRegex('nothing', /(?<n>\d+)/, false)).toBeUndefined();
    expect(extractRegex('id 42', /\d+/, false)).toBe('42');
  });
  it('omits groups that did not participate', () => {
    expect(extractRegex('a', /(?<x>a)|(?<y>b)/, false)).toEqual({ x: 'a' });
  });
});
