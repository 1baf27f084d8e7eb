/** The tools/call outcomes of CONTRACT.md §4 through the engine's public functions. */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { rewriteToolCall, rewriteToolsList } from '../../../src/retrofit/engine.js';
import type { UpstreamPolicy } from '../../../src/retrofit/policy.js';
import { upstreamWith } from './helpers.js';

const WEATHER: JsonObject = { type: 'object', properties: { city: { type: 'string' }, temp: { type: 'integer' } }, required: ['city', 'temp'] };
const text = (t: string) => ({ type: 'text', text: t });
const call = (result: JsonObject, policy: UpstreamPolicy, tool = 'weather', revision = '2025-11-25') => rewriteToolCall(result, tool, policy, revision);

describe('results the engine never touches', () => {
  const policy = upstreamWith({ weather: { outputSchema: WEATHER } });
  it.each([
    ['isError', { content: [text('boom')], isError: true }],
    ['input_required', { resultType: 'input_required', inputRequests: {} }],
    ['task creation', { task: { taskId: 't1', status: 'working' } }],
  ])('%s', (_name, result) => {
    const out = call(result as JsonObject, policy);
    expect(out.result).toBe(result);
    expect(out.outcome).toEqual({ tool: 'weather', outcome: 'untouched' });
  });

  it('tools without a policy and without structuredContent', () => {
    const result = { content: [text('{"a":1}')] };
    expect(call(result, policy, 'other').result).toBe(result);
  });
});

describe('valid', () => {
  const policy = upstreamWith({ weather: { outputSchema: WEATHER } });

  it('sets structuredContent and keeps content as is', () => {
    const result = { content: [text('Weather: {"city": "Oslo", "temp": -3}')], _meta: { k: 1 } };
    const out = call(result, policy);
    expect(out.result).toEqual({ ...result, structuredContent: { city: 'Oslo', temp: -3 } });
    expect(out.outcome).toEqual({ tool: 'weather', outcome: 'extracted', format: 'embedded' });
  });

  it('adds a JSON text block when the result has none (resource block with a JSON mime type)', () => {
    const resource = { type: 'resource', resource: { uri: 'x://w', mimeType: 'application/json; charset=utf-8', text: '{"city":"Rome","temp":30}' } };
    const out = call({ content: [resource] }, policy);
    expect(out.result.structuredContent).toEqual({ city: 'Rome', temp: 30 });
    expect(out.result.content).toEqual([resource, text('{"city":"Rome","temp":30}')]);
  });

  it('coerces strings where the schema wants numbers', () => {
    const out = call({ content: [text('{"city": "Oslo", "temp": "-3"}')] }, policy);
    expect(out.result.structuredContent).toEqual({ city: 'Oslo', temp: -3 });
  });

  it('does not coerce when coerce is off', () => {
    const strict = upstreamWith({ weather: { outputSchema: WEATHER, coerce: false } });
    expect(call({ content: [text('{"city": "Oslo", "temp": "-3"}')] }, strict).outcome.outcome).toBe('invalid');
  });

  it('select then wrap', () => {
    const p = upstreamWith({ weather: { outputSchema: { type: 'object', properties: { w: WEATHER }, required: ['w'] }, extract: { format: 'json', select: '/data/0', wrap: 'w' } } });
    const out = call({ content: [text('{"data": [{"city": "A", "temp": 1}]}')] }, p);
    expect(out.result.structuredContent).toEqual({ w: { city: 'A', temp: 1 } });
  });

  // Regression (review of the retrofit engine, 2026-12-07): the scalar and one-item/empty list readings looked at
  // the schema's root, an object under `wrap`, so none was offered where the reading lands.
  it.each([
    ['a scalar text under a string', { type: 'string' }, [text('hello world')], { v: 'hello world' }],
    ['True under a boolean', { type: 'boolean' }, [text('True')], { v: true }],
    ['one JSON object under an array', { type: 'array' }, [text('{"a": 1}')], { v: [{ a: 1 }] }],
    ['no content under an array', { type: 'array' }, [], { v: [] }],
  ])('wrap: %s is read where the reading lands', (_label, under, content, expected) => {
    const p = upstreamWith({ t: { outputSchema: { type: 'object', properties: { v: under }, required: ['v'] }, extract: { format: 'auto', wrap: 'v' } } });
    expect(call({ content }, p, 't').result.structuredContent).toEqual(expected);
  });

  // Regression (review of the retrofit engine, 2026-12-07): FastMCP sends a list[str] result as one raw text block
  // per string; the blocks reading wanted JSON in every block.
  it.each([
    [['apple', 'banana'], ['apple', 'banana']],
    [['42', 'x'], ['42', 'x']],
    [['42', '43'], ['42', '43']],
  ])('a list of strings sent one raw block per string: %j', (items, expected) => {
    const p = upstreamWith({ t: { outputSchema: { type: 'array', items: { type: 'string' } }, extract: { format: 'auto' } } });
    expect(call({ content: items.map(text) }, p, 't', '2026-07-28').result.structuredContent).toEqual(expected);
  });

  it('a string schema keeps JSON-looking text as a string', () => {
    const p = upstreamWith({ echo: { outputSchema: { type: 'string' } } });
    const out = call({ content: [text('{"a": 1}')] }, p, 'echo', '2026-07-28');
    expect(out.result.structuredContent).toBe('{"a": 1}');
    expect(out.outcome.format).toBe('scalar');
  });

  it('an integer schema reads "17"', () => {
    const p = upstreamWith({ count: { outputSchema: { type: 'integer' } } });
    expect(call({ content: [text(' 17 ')] }, p, 'count', '2026-07-28').result.structuredContent).toBe(17);
  });

  it('native {result: V} from an upstream that already wrapped for this session is V, not double-wrapped', () => {
    const p = upstreamWith({ nums: { outputSchema: { type: 'array', items: { type: 'integer' } } } });
    const result = { content: [text('[1,2]')], structuredContent: { result: [1, 2] } };
    expect(call(result, p, 'nums', '2025-11-25').result.structuredContent).toEqual({ result: [1, 2] });
    expect(call(result, p, 'nums', '2026-07-28').result.structuredContent).toEqual([1, 2]);
    expect(call(result, p, 'nums').outcome.outcome).toBe('native');
  });

  it('validates upstream structuredContent (native)', () => {
    const result = { content: [text('ok')], structuredContent: { city: 'X', temp: 2 } };
    const out = call(result, policy);
    expect(out.outcome).toEqual({ tool: 'weather', outcome: 'native' });
    expect(out.result.structuredContent).toEqual({ city: 'X', temp: 2 });
  });
});

describe('invalid and unparseable', () => {
  const policy = upstreamWith({ weather: { outputSchema: WEATHER } });

  it('onInvalid error: isError, content kept, one text block with the tool and pointers', () => {
    const result = { content: [text('{"city": 3, "temp": "warm"}')] };
    const out = call(result, policy);
    expect(out.outcome.outcome).toBe('invalid');
    expect(out.result.isError).toBe(true);
    expect(out.result).not.toHaveProperty('structuredContent');
    const content = out.result.content as JsonObject[];
    expect(content[0]).toEqual(result.content[0]);
    expect(content).toHaveLength(2);
    expect(content[1]!.text).toContain('Tool "weather"');
    expect(content[1]!.text).toContain('/city must be string');
    expect(content[1]!.text).toContain('/temp must be integer');
  });

  it('caps the reasons at 10, then "and N more"', () => {
    const props = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`p${i}`, { type: 'integer' }]));
    const p = upstreamWith({ many: { outputSchema: { type: 'object', properties: props } } });
    const value = Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`p${i}`, 'x']));
    const out = call({ content: [text(JSON.stringify(value))] }, p, 'many');
    const message = (out.result.content as JsonObject[])[1]!.text as string;
    expect(message.split('\n').filter((l) => l.startsWith('- /p'))).toHaveLength(10);
    expect(message).toContain('- and 4 more');
    expect(out.outcome.reasons).toHaveLength(11);
    expect(out.outcome.reasons?.[10]).toBe('and 4 more');
  });

  it('unparseable text', () => {
    const out = call({ content: [text('The weather is nice today.')] }, policy);
    expect(out.outcome.outcome).toBe('unparseable');
    expect(out.result.isError).toBe(true);
  });

  it.each([
    [{ format: 'json' }, 'the text content is not one JSON value'],
    [{ format: 'regex', pattern: '(?<city>\\d+)' }, 'the pattern does not match the text content'],
    [{ format: 'yaml' }, 'the text content is neither YAML nor "key: value" lines'],
  ] as const)('unparseable with %j says why', (extract, reason) => {
    const p = upstreamWith({ weather: { outputSchema: WEATHER, extract } });
    const out = call({ content: [text('just prose here')] }, p);
    expect(out.outcome).toMatchObject({ outcome: 'unparseable', reasons: [reason] });
  });

  it('no text content at all', () => {
    const out = call({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] }, policy);
    expect(out.outcome.outcome).toBe('unparseable');
    expect(out.outcome.reasons).toEqual(['the result has no text content']);
  });

  it('invalid native structuredContent is removed from the error result', () => {
    const out = call({ content: [text('x')], structuredContent: { city: 1 } }, policy);
    expect(out.outcome).toMatchObject({ outcome: 'invalid', format: 'native' });
    expect(out.result).not.toHaveProperty('structuredContent');
    expect(out.result.isError).toBe(true);
  });

  it('select that misses is a reason', () => {
    const p = upstreamWith({ weather: { outputSchema: WEATHER, extract: { format: 'auto', select: '/nope' } } });
    expect(call({ content: [text('{"a": 1}')] }, p).outcome.reasons).toEqual(['select /nope: no such value']);
  });

  it('onInvalid passthrough returns the upstream result unchanged (shadow), with the failure as the outcome', () => {
    const p = upstreamWith({ weather: { outputSchema: WEATHER, onInvalid: 'passthrough' } });
    const result = { content: [text('nope')] };
    const out = call(result, p);
    expect(out.result).toBe(result);
    expect(out.outcome).toMatchObject({ outcome: 'unparseable', reasons: ['no JSON value found in the text content'] });
  });
});

describe('yaml and regex formats', () => {
  it('yaml key: value report', () => {
    const p = upstreamWith({ info: { outputSchema: { type: 'object', properties: { uptime: { type: 'integer' }, status: { type: 'string' } }, required: ['uptime'] }, extract: { format: 'yaml' } } });
    const out = call({ content: [text('status: running\nuptime: 3600')] }, p, 'info');
    expect(out.result.structuredContent).toEqual({ status: 'running', uptime: 3600 });
    expect(out.outcome.format).toBe('yaml');
  });

  it('regex with all and coercion, wrapped for object-only clients', () => {
    const schema: JsonObject = { type: 'array', items: { type: 'object', properties: { name: { type: 'string' }, size: { type: 'integer' } }, required: ['name', 'size'] } };
    const p = upstreamWith({ ls: { outputSchema: schema, extract: { format: 'regex', pattern: '^\\[FILE\\] (?<name>\\S+) (?<size>\\d+)$', flags: 'm', all: true } } });
    const out = call({ content: [text('[FILE] a.txt 12\n[DIR] sub\n[FILE] b.md 3')] }, p, 'ls');
    expect(out.result.structuredContent).toEqual({ result: [{ name: 'a.txt', size: 12 }, { name: 'b.md', size: 3 }] });
    const none = call({ content: [text('empty')] }, p, 'ls', '2026-07-28');
    expect(none.result.structuredContent).toEqual([]);
  });
});

describe('native schemas of tools without policy', () => {
  it('tools/list and tools/call make the same wrap decision', () => {
    const policy = upstreamWith({});
    const list = rewriteToolsList({ tools: [{ name: 'pick', inputSchema: { type: 'object' }, outputSchema: { anyOf: [{ type: 'object' }, { type: 'array' }] } }] }, policy, '2025-11-25');
    expect((list.result.tools as JsonObject[])[0]!.outputSchema).toMatchObject({ type: 'object', required: ['result'] });
    // The value is an object, but the schema was wrapped: the value must be wrapped too.
    const out = call({ content: [text('{}')], structuredContent: { a: 1 } }, policy, 'pick');
    expect(out.result.structuredContent).toEqual({ result: { a: 1 } });
  });

  it('object roots stay as they are (same object when nothing changes)', () => {
    const policy = upstreamWith({});
    rewriteToolsList({ tools: [{ name: 'o', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }] }, policy, '2025-11-25');
    const result = { content: [text('{"a":1}')], structuredContent: { a: 1 } };
    expect(call(result, policy, 'o').result).toBe(result);
  });

  it('unknown tools (gateway restarted since tools/list) are decided by the value', () => {
    const policy = upstreamWith({});
    expect(call({ content: [], structuredContent: [1, 2] }, policy, 'fresh').result).toEqual({ content: [text('[1,2]')], structuredContent: { result: [1, 2] } });
    expect(call({ content: [text('x')], structuredContent: { a: 1 } }, policy, 'fresh2').result.structuredContent).toEqual({ a: 1 });
  });

  it('2025-03-26 clients get no structuredContent, the JSON stays in text', () => {
    const policy = upstreamWith({});
    expect(call({ content: [], structuredContent: 5 }, policy, 'n', '2025-03-26').result).toEqual({ content: [text('5')] });
  });

  it('modern clients get any root as is, with a text block added', () => {
    const policy = upstreamWith({});
    expect(call({ content: [], structuredContent: null }, policy, 'n', '2026-07-28').result).toEqual({ content: [text('null')], structuredContent: null });
  });
});

describe('tools/list rewrite keeps everything else', () => {
  it('order, fields, pagination and 2026 result fields', () => {
    const policy = upstreamWith({ 'get_*': { outputSchema: { type: 'integer' } }, get_exact: { outputSchema: { type: 'object' } } });
    const result = {
      tools: [
        { name: 'z', inputSchema: { type: 'object' }, annotations: { title: 'Z' } },
        { name: 'get_count', inputSchema: { type: 'object' }, outputSchema: { type: 'object' }, _meta: { m: 1 }, icons: [] },
        { name: 'get_exact', inputSchema: { type: 'object' } },
      ],
      nextCursor: 'c2',
      ttlMs: 5000,
      cacheScope: 'global',
      _meta: { r: 1 },
    };
    const out = rewriteToolsList(result, policy, '2026-07-28').result;
    expect(out).toEqual({
      ...result,
      tools: [
        result.tools[0],
        { ...result.tools[1], outputSchema: { type: 'integer' } },
        { ...result.tools[2], outputSchema: { type: 'object' } },
      ],
    });
  });

  it('returns the same object when nothing changes', () => {
    const result = { tools: [{ name: 'a', inputSchema: { type: 'object' } }] };
    expect(rewriteToolsList(result, upstreamWith({}), '2025-11-25').result).toBe(result);
  });
});

describe('regression: ajv deep-equal throws on a "valueOf" key', () => {
  it('an enum of objects against {"valueOf": null} is invalid, not an exception', () => {
    const p = upstreamWith({ e: { outputSchema: { enum: [{}, []] } } });
    const out = call({ content: [text('{"valueOf": null}')] }, p, 'e', '2026-07-28');
    expect(out.outcome.outcome).toBe('invalid');
    expect(out.result.isError).toBe(true);
  });
});
