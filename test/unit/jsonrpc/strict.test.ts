import fc from '../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { classifyMessage } from '../../../src/jsonrpc/classify.js';
import { answerProblem, MAX_DEPTH, nestedTooDeeply, nestedTooDeeplyInSlices, responseProblem, strictProblem, toolResultProblem } from '../../../src/jsonrpc/strict.js';

const problem = (message: unknown): string | undefined => strictProblem(classifyMessage(message));

describe('strictProblem', () => {
  it('accepts the messages a strict JSON-RPC reader takes', () => {
    expect(problem({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(problem({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 't' } })).toBeUndefined();
    expect(problem({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    expect(problem({ jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
    expect(problem({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } })).toBeUndefined();
  });

  it('refuses what is not a JSON-RPC message at all', () => {
    for (const m of [null, [], 'x', { id: 1, method: 'm' }, { jsonrpc: '1.0', id: 1, method: 'm' }, { jsonrpc: '2.0', id: 1 }]) {
      expect(problem(m)).toBe('not a JSON-RPC message');
    }
  });

  it('refuses requests with unknown keys, non-integer ids or params that are not an object', () => {
    expect(problem({ jsonrpc: '2.0', id: 1, method: 'm', extra: true })).toBe('a request has only jsonrpc, id, method and params');
    expect(problem({ jsonrpc: '2.0', id: 1.5, method: 'm' })).toBe('a request id must be a string or an integer');
    expect(problem({ jsonrpc: '2.0', id: 1, method: 'm', params: [1, 2] })).toBe('params must be an object');
    expect(problem({ jsonrpc: '2.0', id: 1, method: 'm', params: null })).toBe('params must be an object');
  });

  it('refuses notifications with unknown keys or params that are not an object', () => {
    expect(problem({ jsonrpc: '2.0', method: 'n', extra: 1 })).toBe('a notification has only jsonrpc, method and params');
    expect(problem({ jsonrpc: '2.0', method: 'n', params: 'p' })).toBe('params must be an object');
  });

  it('refuses responses with unknown keys or both a result and an error', () => {
    expect(problem({ jsonrpc: '2.0', id: 1, result: {}, extra: 1 })).toBe('a response has a result or an error');
    expect(problem({ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } })).toBe('a response has a result or an error');
  });
});

const nest = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('nestedTooDeeply', () => {
  it('counts arrays and objects, up to and over the limit', () => {
    expect(nestedTooDeeply(nest(3), 3)).toBe(false);
    expect(nestedTooDeeply(nest(4), 3)).toBe(true);
    expect(nestedTooDeeply('{"a":{"b":[{}]}}', 4)).toBe(false);
    expect(nestedTooDeeply('{"a":{"b":[{}]}}', 3)).toBe(true);
    // Siblings do not add up: depth goes back down.
    expect(nestedTooDeeply('[[1],[2],[3],[4]]', 2)).toBe(false);
  });

  it('skips strings, escaped quotes and backslashes included, as text and as bytes', () => {
    const cases: [string, boolean][] = [
      // Brackets inside a string are not nesting, whatever quotes are escaped in it.
      ['{"a":"x\\"[[[[[[[[ ]]]]]]]]\\" [[[["}', false],
      // An escaped backslash before the closing quote: the string ends there, and the brackets after it count.
      ['{"a":"x\\\\","b":[[[[]]]]}', true],
      ['{"a":"x\\\\\\"[[[[","b":[[]]}', false],
      // A string that never closes: nothing after its quote counts.
      ['{"a":"[[[[[[[[[[[[', false],
    ];
    // The closing quote (or an escaped one) at every distance around where the reading hands over to a native search.
    for (let k = 28; k <= 36; k++) {
      cases.push([`{"a":"${'x'.repeat(k)}","b":[[[[]]]]}`, true]);
      cases.push([`{"a":"${'x'.repeat(k)}\\"[[[[","b":[[]]}`, false]);
    }
    for (const [text, deep] of cases) {
      expect(nestedTooDeeply(text, 3)).toBe(deep);
      expect(nestedTooDeeply(Buffer.from(text), 3)).toBe(deep);
    }
  });

  it('agrees with a character-by-character reading on any text, quotes near and far apart, as text and as bytes', () => {
    // Runs around 32 characters (where the reading by hand hands over to a native search) come often.
    const run = fc.oneof(fc.integer({ min: 29, max: 35 }), fc.nat(90)).map((n) => 'a'.repeat(n));
    const piece = fc.oneof(fc.constantFrom('"', '\\', '[', ']', '{', '}', 'é'), run);
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 60 }), (pieces) => {
        const text = pieces.join('');
        expect(nestedTooDeeply(text, 3)).toBe(reference(text, 3));
        // Too short to nest that deep is counted in the representation's own units: é is one character, two bytes.
        expect(nestedTooDeeply(Buffer.from(text), 3)).toBe(reference(text, 3, Buffer.byteLength(text)));
      }),
      { numRuns: 2000 },
    );
  });

  it('gives the same answer read in slices, wherever a slice ends (inside a string, on a backslash, on a quote)', async () => {
    const run = fc.oneof(fc.integer({ min: 29, max: 35 }), fc.nat(40)).map((n) => 'a'.repeat(n));
    const piece = fc.oneof(fc.constantFrom('"', '\\', '\\"', '[', ']', '{', '}', 'é'), run);
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 60 }), fc.integer({ min: 1, max: 40 }), async (pieces, slice) => {
        const bytes = Buffer.from(pieces.join(''));
        const answer = nestedTooDeeplyInSlices(bytes, 3, slice);
        // More bytes than a slice (and than JSON that deep needs): a promise, read a slice at a time; else at once.
        expect(answer instanceof Promise).toBe(bytes.length > Math.max(slice, 6));
        expect(await answer).toBe(reference(bytes.toString(), 3, bytes.length));
      }),
      { numRuns: 1000 },
    );
  });

  it('reads text at once, whatever its length, and bytes too few to nest that deep without reading them', () => {
    expect(nestedTooDeeplyInSlices(nest(4).padEnd(100, ' '), 3, 10)).toBe(true);
    // Found by the property above: more bytes than a slice, but too few to be JSON that deep.
    expect(nestedTooDeeplyInSlices(Buffer.from('{{[['), 3, 1)).toBe(false);
  });

  it('a deep answer past many slices, and a shallow one as long', async () => {
    // 1.2 MB of a string of escaped quotes (a slice ends inside it), then nesting one level past the limit or at it.
    const deep = Buffer.from(`{"text":"${'\\"['.repeat(400_000)}","x":${nest(MAX_DEPTH)}}`);
    const shallow = Buffer.from(`{"text":"${'\\"['.repeat(400_000)}","x":${nest(MAX_DEPTH - 1)}}`);
    await expect(nestedTooDeeplyInSlices(deep)).resolves.toBe(true);
    await expect(nestedTooDeeplyInSlices(shallow)).resolves.toBe(false);
    expect([nestedTooDeeply(deep), nestedTooDeeply(shallow)]).toEqual([true, false]);
  });
});

// The reading the native searches stand in for: inside a string, a backslash escapes the next character.
function reference(text: string, limit: number, length = text.length): boolean {
  if (length <= 2 * limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      if (++depth > limit) return true;
    } else if (c === ']' || c === '}') depth--;
  }
  return false;
}

describe('nestedTooDeeply, its bounds', () => {
  it('does not read a text too short to be JSON that deep (two brackets a level)', () => {
    expect(nestedTooDeeply('[[[[', 3)).toBe(false);
    expect(nestedTooDeeply('[[[[]]]]', 3)).toBe(true);
    // Short is counted in the representation's units (found by the property above): six characters, seven bytes.
    expect(nestedTooDeeply('é[[{\\[', 3)).toBe(false);
    expect(nestedTooDeeply(Buffer.from('é[[{\\['), 3)).toBe(true);
  });

  it('defaults to MAX_DEPTH', () => {
    expect(nestedTooDeeply(nest(MAX_DEPTH))).toBe(false);
    expect(nestedTooDeeply(nest(MAX_DEPTH + 1))).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    expect(nestedTooDeeply(`["${'[{'.repeat(50)}"]`, 1)).toBe(false);
    // An escaped quote does not end the string: the brackets after it are still inside it.
    expect(nestedTooDeeply(`["a\\"${'['.repeat(50)}"]`, 1)).toBe(false);
    // An escaped backslash does end it: the brackets after the closing quote count.
    expect(nestedTooDeeply(`["a\\\\",${nest(3)}]`, 3)).toBe(true);
    expect(nestedTooDeeply(`{"k\\"[[[":"v\\\\\\"]]]]"}`, 1)).toBe(false);
  });

  it('agrees with the depth of what JSON.parse builds, for strings full of brackets and escapes', () => {
    const depthOf = (v: unknown): number => (v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0);
    const samples = [{ a: ['[', '\\', '"[{', { b: '\\"}]' }] }, [[['\\\\'], '"'], { '[': { '{': '}' } }], { s: '\\'.repeat(7) + '[[[' }];
    for (const value of samples) {
      const text = JSON.stringify(value);
      const depth = depthOf(value);
      expect(nestedTooDeeply(text, depth), text).toBe(false);
      expect(nestedTooDeeply(text, depth - 1), text).toBe(true);
    }
  });
});

describe('responseProblem', () => {
  it('takes what a strict client takes: jsonrpc 2.0, a result object or an error with an integer code and a string message', () => {
    expect(responseProblem({ jsonrpc: '2.0', id: 1, result: {} })).toBeUndefined();
    expect(responseProblem({ jsonrpc: '2.0', id: 'a', error: { code: -32000, message: 'no', data: { x: 1 } } })).toBeUndefined();
    expect(responseProblem({ jsonrpc: '1.0', id: 1, result: {} })).toBe('jsonrpc is not "2.0"');
    expect(responseProblem({ id: 1, result: {} })).toBe('jsonrpc is not "2.0"');
    expect(responseProblem({ jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } })).toBe('a response has a result or an error, not both');
    expect(responseProblem({ jsonrpc: '2.0', id: 1 })).toBe('a response has a result or an error');
    expect(responseProblem({ jsonrpc: '2.0', id: 1, result: {}, extra: true })).toBe('a response has only jsonrpc, id and a result or an error');
    expect(responseProblem({ jsonrpc: '2.0', id: 1, result: 42 })).toBe('a result must be an object');
    expect(responseProblem({ jsonrpc: '2.0', id: 1, result: [] })).toBe('a result must be an object');
    // A result's _meta as the SDK clients' ResultSchema reads it (they drop the message otherwise).
    expect(responseProblem({ jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 'p', 'io.modelcontextprotocol/related-task': { taskId: 't' }, other: 1 } } })).toBeUndefined();
    expect(responseProblem({ jsonrpc: '2.0', id: 1, result: { _meta: { progressToken: 7 } } })).toBeUndefined();
    for (const meta of [null, 'x', [], 3]) expect(responseProblem({ jsonrpc: '2.0', id: 1, result: { _meta: meta } }), JSON.stringify(meta)).toBe("a result's _meta must be an object");
    for (const progressToken of [1.5, null, true, {}]) expect(responseProblem({ jsonrpc: '2.0', id: 1, result: { _meta: { progressToken } } })).toBe('a progressToken must be a string or an integer');
    expect(responseProblem({ jsonrpc: '2.0', id: 1, result: { _meta: { 'io.modelcontextprotocol/related-task': { taskId: 1 } } } })).toBe('io.modelcontextprotocol/related-task has a string taskId');
    for (const error of ['oops', { code: 1.5, message: 'x' }, { code: 1 }, { message: 'x' }]) {
      expect(responseProblem({ jsonrpc: '2.0', id: 1, error }), JSON.stringify(error)).toBe('an error has an integer code and a string message');
    }
  });
});

describe('toolResultProblem and answerProblem for tools/call', () => {
  it('takes the CallToolResults the SDK clients take, structuredContent of any kind left to the engine', () => {
    const results = [
      {},
      { content: [] },
      { content: [{ type: 'text', text: 'x' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }], isError: false },
      { content: [{ type: 'text', text: '' }], isError: true, structuredContent: [1, 2] },
      { task: { taskId: 't', status: 'working' } },
      { toolResult: 3 },
    ];
    for (const result of results) expect(toolResultProblem(result), JSON.stringify(result)).toBeUndefined();
  });

  it('names what a strict client refuses: isError not a boolean, content not an array of typed blocks, a text that is no string', () => {
    for (const isError of ['yes', 1, null]) expect(toolResultProblem({ content: [], isError })).toBe("a tool result's isError must be a boolean");
    for (const content of ['x', null, {}, 3]) expect(toolResultProblem({ content })).toBe("a tool result's content must be an array");
    for (const block of ['x', null, [], { text: 'x' }, { type: 3 }]) expect(toolResultProblem({ content: [{ type: 'text', text: 'a' }, block] }), JSON.stringify(block)).toBe("a tool result's content blocks must be objects with a string type");
    for (const text of [9, { a: 1 }, undefined]) expect(toolResultProblem({ content: [{ type: 'text', text }] })).toBe("a text block's text must be a string");
    // The SDK clients' ContentBlock is a union of five types: any other fails it (test/unit/jsonrpc/content-blocks.test.ts).
    expect(toolResultProblem({ content: [{ type: 'text', text: 'a' }, { type: 'future', whatever: 1 }] })).toBe("a content block's type must be text, image, audio, resource or resource_link");
  });

  it('applies to the answer to a tools/call only, after the response itself is checked', () => {
    expect(answerProblem('tools/call', { jsonrpc: '2.0', id: 1, result: { content: 'x' } })).toBe("a tool result's content must be an array");
    expect(answerProblem('tools/call', { jsonrpc: '1.0', id: 1, result: { content: 'x' } })).toBe('jsonrpc is not "2.0"');
    expect(answerProblem('tools/call', { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } })).toBeUndefined();
    expect(answerProblem('resources/read', { jsonrpc: '2.0', id: 1, result: { content: 'x' } })).toBeUndefined();
    expect(answerProblem('tasks/result', { jsonrpc: '2.0', id: 1, result: { isError: 'yes' } })).toBeUndefined();
  });
});

describe('strictProblem: ids and _meta (regressions from the client-side review)', () => {
  const problem = (message: unknown) => strictProblem(classifyMessage(message));
  it('refuses a request id past 2^53 (no answer could match it once parsed), takes the largest safe one', () => {
    expect(problem(JSON.parse('{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}'))).toBe('a request id must be a string or an integer');
    expect(problem({ jsonrpc: '2.0', id: Number.MAX_SAFE_INTEGER, method: 'ping' })).toBeUndefined();
  });
  it('refuses a response whose id is not a string or an integer', () => {
    expect(problem({ jsonrpc: '2.0', id: null, result: {} })).toBe('a response id must be a string or an integer');
    expect(problem({ jsonrpc: '2.0', id: 1.5, result: {} })).toBe('a response id must be a string or an integer');
    expect(problem({ jsonrpc: '2.0', id: 'a', result: {} })).toBeUndefined();
  });
  it('refuses params._meta that is not an object', () => {
    expect(problem({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: [1] } })).toBe('params._meta must be an object');
    expect(problem({ jsonrpc: '2.0', method: 'notifications/initialized', params: { _meta: 'x' } })).toBe('params._meta must be an object');
    expect(problem({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: {} } })).toBeUndefined();
  });
});
