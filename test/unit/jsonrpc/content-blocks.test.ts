import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import fc from '../../helpers/fast-check.js';
import { contentBlockProblem, isBase64 } from '../../../src/jsonrpc/content-blocks.js';
import { toolResultProblem } from '../../../src/jsonrpc/strict.js';

/** What the v1 SDK client takes: its CallToolResult schema, around one block. */
const v1Takes = (block: unknown): boolean => CallToolResultSchema.safeParse({ content: [block] }).success;

const VALID = [
  { type: 'text', text: '' },
  { type: 'text', text: 'x', annotations: { audience: ['user', 'assistant'], priority: 0.5, lastModified: '2025-01-02T03:04:05.678+01:00' }, _meta: { a: 1 } },
  { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
  { type: 'image', data: '', mimeType: '' },
  { type: 'audio', data: 'UklG\nRg==', mimeType: 'audio/wav', annotations: {} },
  { type: 'resource', resource: { uri: 'file:///a', text: 'hello', mimeType: 'text/plain' } },
  { type: 'resource', resource: { uri: 'file:///b', blob: 'AAAA', _meta: {} } },
  { type: 'resource_link', uri: 'file:///c', name: 'c' },
  { type: 'resource_link', uri: 'file:///d', name: 'd', title: 'D', description: 'x', mimeType: 'text/plain', size: 3, icons: [{ src: 'a.png', sizes: ['48x48'], theme: 'dark' }], _meta: { k: [] } },
];

const INVALID: [unknown, string][] = [
  [{ type: 'weird', text: 'x' }, "a content block's type must be text, image, audio, resource or resource_link"],
  [{ type: 'image', mimeType: 'image/png' }, 'an image block must have base64 data and a string mimeType'],
  [{ type: 'image', data: 'AAAA' }, 'an image block must have base64 data and a string mimeType'],
  [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }, 'an image block must have base64 data and a string mimeType'],
  [{ type: 'audio', data: 3, mimeType: 'audio/wav' }, 'an audio block must have base64 data and a string mimeType'],
  [{ type: 'resource', resource: { text: 'x' } }, "a resource block's resource must have a string uri and a string text or base64 blob"],
  [{ type: 'resource', resource: { uri: 'file:///a' } }, "a resource block's resource must have a string uri and a string text or base64 blob"],
  [{ type: 'resource', resource: { uri: 'file:///a', blob: '***' } }, "a resource block's resource must have a string uri and a string text or base64 blob"],
  [{ type: 'resource', uri: 'file:///a', text: 'x' }, "a resource block's resource must have a string uri and a string text or base64 blob"],
  [{ type: 'resource_link', uri: 'file:///a' }, 'a resource_link block must have a string uri and name'],
  [{ type: 'resource_link', name: 'a' }, 'a resource_link block must have a string uri and name'],
  [{ type: 'resource_link', uri: 'u', name: 'n', size: '3' }, "a resource_link block's title, description and mimeType must be strings, its size a number, its icons icons"],
  [{ type: 'resource_link', uri: 'u', name: 'n', icons: [{ src: 'a', theme: 'blue' }] }, "a resource_link block's title, description and mimeType must be strings, its size a number, its icons icons"],
  [{ type: 'text', text: 'x', annotations: { priority: 2 } }, "a content block's annotations must be an object of audience, priority and lastModified"],
  [{ type: 'text', text: 'x', annotations: { audience: ['bot'] } }, "a content block's annotations must be an object of audience, priority and lastModified"],
  [{ type: 'text', text: 'x', annotations: { lastModified: '2025-02-30T00:00:00Z' } }, "a content block's annotations must be an object of audience, priority and lastModified"],
  [{ type: 'text', text: 'x', _meta: [] }, "a content block's _meta must be an object"],
];

describe('contentBlockProblem', () => {
  it('takes a valid block of each of the five types, as the v1 SDK client does', () => {
    for (const block of VALID) {
      expect(v1Takes(block), JSON.stringify(block)).toBe(true);
      expect(contentBlockProblem(block), JSON.stringify(block)).toBeUndefined();
    }
  });

  it('names what the v1 SDK client refuses: an unknown type, a required field missing or mistyped, a bad optional one', () => {
    for (const [block, problem] of INVALID) {
      expect(v1Takes(block), JSON.stringify(block)).toBe(false);
      expect(toolResultProblem({ content: [{ type: 'text', text: 'ok' }, block] }), JSON.stringify(block)).toBe(problem);
    }
  });

  it('agrees with the v1 SDK client on every block', () => {
    const str = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('AAAA', 'AA==', 'A===', 'AB=C', ' A A\tA=\n', '2025-01-02T03:04:05Z', 'user'));
    const value = fc.oneof(str, fc.integer({ min: -1, max: 2 }), fc.double({ min: -1, max: 2, noNaN: true }), fc.constant(null), fc.constant({}), fc.array(str, { maxLength: 2 }));
    // Mostly what the schema wants, sometimes anything: valid and invalid blocks both come often.
    const mostly = <T,>(valid: fc.Arbitrary<T>) => fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: value, weight: 1 });
    const base64 = fc.constantFrom('', 'AAAA', 'iVBORw0KGgo=', 'AA==', ' A A\tA=\n', 'A', 'A===', '-_');
    const annotations = fc.record(
      {
        audience: mostly(fc.array(fc.constantFrom('user', 'assistant', 'bot'), { maxLength: 2 })),
        priority: mostly(fc.double({ min: -0.5, max: 1.5, noNaN: true })),
        lastModified: mostly(fc.constantFrom('2025-01-02T03:04:05Z', '2024-02-29T23:59:59.5-07:00', '2023-02-29T00:00:00Z', '2025-01-02T03:04Z', '2025-01-02')),
      },
      { requiredKeys: [] },
    );
    const icon = fc.record({ src: mostly(fc.string()), mimeType: mostly(fc.string()), sizes: mostly(fc.array(fc.string(), { maxLength: 2 })), theme: mostly(fc.constantFrom('light', 'dark', 'blue')) }, { requiredKeys: ['src'] });
    const resource = fc.record({ uri: mostly(fc.string()), text: mostly(fc.string()), blob: mostly(base64), mimeType: mostly(fc.string()), _meta: mostly(fc.constant({ a: 1 })) }, { requiredKeys: [] });
    const block = fc.record(
      {
        type: fc.oneof({ arbitrary: fc.constantFrom('text', 'image', 'audio', 'resource', 'resource_link'), weight: 6 }, { arbitrary: fc.oneof(fc.constant('weird'), value), weight: 1 }),
        text: mostly(fc.string()),
        data: mostly(base64),
        mimeType: mostly(fc.string()),
        resource: mostly(resource),
        uri: mostly(fc.string()),
        name: mostly(fc.string()),
        title: mostly(fc.string()),
        description: mostly(fc.string()),
        size: mostly(fc.nat()),
        icons: mostly(fc.array(mostly(icon), { maxLength: 2 })),
        annotations: mostly(annotations),
        _meta: mostly(fc.constant({ k: [] })),
      },
      { requiredKeys: ['type'] },
    );
    let took = 0;
    fc.assert(
      fc.property(block, (b) => {
        const takes = v1Takes(b);
        if (takes) took++;
        expect(contentBlockProblem(b) === undefined, JSON.stringify(b)).toBe(takes);
      }),
      { numRuns: 10_000 },
    );
    // Both answers were put to the test.
    expect(took).toBeGreaterThan(500);
    expect(took).toBeLessThan(9000);
  });
});

describe('isBase64', () => {
  it('is what atob decodes', () => {
    const decodes = (s: string): boolean => {
      try {
        atob(s);
        return true;
      } catch {
        return false;
      }
    };
    fc.assert(
      fc.property(fc.array(fc.constantFrom('A', 'z', '0', '+', '/', '=', ' ', '\n', '\t', '-', '_', 'é', '\f', '\v'), { maxLength: 12 }), (chars) => {
        const s = chars.join('');
        expect(isBase64(s), JSON.stringify(s)).toBe(decodes(s));
      }),
      { numRuns: 20_000 },
    );
  });
});
