import { describe, expect, it } from 'vitest';
import { typeTwin } from '../../../src/session/pending.js';

describe('typeTwin: the id an off-spec answer may write for a request id', () => {
  it('pairs safe integers with their canonical strings', () => {
    expect(typeTwin(2)).toBe('2');
    expect(typeTwin('2')).toBe(2);
    expect(typeTwin(-7)).toBe('-7');
    expect(typeTwin('-7')).toBe(-7);
    expect(typeTwin(0)).toBe('0');
    expect(typeTwin(2 ** 53 - 1)).toBe(String(2 ** 53 - 1));
  });
  it('has none for anything else', () => {
    for (const id of ['02', '-0', '1.0', '1e3', ' 1', 'a', '', '9007199254740993', 1.5, 2 ** 53, -0, null]) expect(typeTwin(id as string | number | null)).toBeUndefined();
  });
});
