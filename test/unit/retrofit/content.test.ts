import { describe, expect, it } from 'vitest';
import { ensureTextBlock, isJsonMediaType, textsOf } from '../../../src/retrofit/content.js';

describe('isJsonMediaType', () => {
  it.each([
    ['application/json', true],
    ['Application/JSON; charset=utf-8', true],
    ['application/vnd.api+json', true],
    ['text/json', true],
    ['application/jsonl', false],
    ['text/plain', false],
    ['json', false],
    [undefined, false],
  ])('%s → %s', (type, expected) => {
    expect(isJsonMediaType(type)).toBe(expected);
  });
});

describe('textsOf', () => {
  it('reads text blocks and JSON resources, in order, and nothing else', () => {
    expect(
      textsOf({
        content: [
          { type: 'text', text: 'a' },
          { type: 'image', data: 'x', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'u', mimeType: 'application/json', text: 'b' } },
          { type: 'resource', resource: { uri: 'u', mimeType: 'text/plain', text: 'c' } },
          { type: 'resource', resource: { uri: 'u', mimeType: 'application/json', blob: 'AAAA' } },
          'junk',
        ],
      }),
    ).toEqual(['a', 'b']);
    expect(textsOf({})).toEqual([]);
  });
});

describe('ensureTextBlock', () => {
  it('adds the JSON only when there is no text block', () => {
    const withText = { content: [{ type: 'text', text: 'x' }] };
    expect(ensureTextBlock(withText, 1)).toBe(withText);
    expect(ensureTextBlock({}, [1])).toEqual({ content: [{ type: 'text', text: '[1]' }] });
  });
});
