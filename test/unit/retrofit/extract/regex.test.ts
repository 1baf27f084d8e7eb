import { describe, expect, it } from 'vitest';
import { compilePattern } from '../../../../src/retrofit/extract/pattern.js';
import { extractRegex } from '../../../../src/retrofit/extract/regex.js';

const p = (re: RegExp, all = re.global) => compilePattern(re.source, re.flags.replace('g', ''), all);

describe('regex', () => {
  it('maps named groups of the first match to fields', () => {
    expect(extractRegex('Paris: 21\nOslo: -3', p(/(?<city>\w+): (?<t>-?\d+)/), false)).toEqual({ city: 'Paris', t: '21' });
  });
  it('with all: every match as an array; none → []', () => {
    expect(extractRegex('Paris: 21\nOslo: -3', p(/(?<city>\w+): (?<t>-?\d+)/g), true)).toEqual([{ city: 'Paris', t: '21' }, { city: 'Oslo', t: '-3' }]);
    expect(extractRegex('nothing', p(/(?<city>\w+): (?<t>-?\d+)/g), true)).toEqual([]);
  });
  it('without all and no match: nothing; without groups: the matched text', () => {
    expect(extractRegex('nothing', p(/(?<n>\d+)/), false)).toBeUndefined();
    expect(extractRegex('id 42', p(/\d+/), false)).toBe('42');
  });
  it('omits groups that did not participate', () => {
    expect(extractRegex('a', p(/(?<x>a)|(?<y>b)/), false)).toEqual({ x: 'a' });
  });
  it('group values are the matched text, exactly (leading zeros, points, spaces)', () => {
    expect(extractRegex('zip: 02134 v 1.10 ', p(/zip: (?<zip>\d+) v (?<v>\S+ )/), false)).toEqual({ zip: '02134', v: '1.10 ' });
  });
});
