import { describe, expect, it } from 'vitest';
import { extractBlocks } from '../../../../src/retrofit/extract/blocks.js';

describe('blocks', () => {
  it('turns several JSON blocks into an array', () => {
    expect(extractBlocks(['{"a":1}', ' {"a":2} ', '3'])).toEqual([{ a: 1 }, { a: 2 }, 3]);
  });
  it('needs at least two blocks, all JSON', () => {
    expect(extractBlocks(['{"a":1}'])).toBeUndefined();
    expect(extractBlocks(['{"a":1}', 'prose'])).toBeUndefined();
    expect(extractBlocks(['{"a":1}', ''])).toBeUndefined();
  });
});
