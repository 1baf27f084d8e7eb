import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../src/json.js';
import { OFFLOAD_BYTES, planOffload, textLength } from '../../../../src/pipeline/offload/plan.js';
import { joinMessages, spliceResult } from '../../../../src/pipeline/offload/splice.js';
import { encodeEvent } from '../../../../src/stream/sse-encode.js';
import type { PendingRequest } from '../../../../src/pipeline/request.js';
import { upstreamWith } from '../../retrofit/helpers.js';

const policy = upstreamWith({ typed: { outputSchema: { type: 'object' } }, plain: {} });
const call = (tool: string, method = 'tools/call'): PendingRequest => ({ upstream: 'u', method, tool, revision: '2025-11-25' });
const message = (result: JsonObject): JsonObject => ({ jsonrpc: '2.0', id: 1, result });
const text = (n: number): JsonObject => ({ content: [{ type: 'text', text: 'x'.repeat(n) }] });

describe('planOffload', () => {
  it('picks tools/call and tasks/result answers of configured tools with more text than the threshold', () => {
    expect(OFFLOAD_BYTES).toBe(256 * 1024);
    expect(planOffload(call('typed'), policy, message(text(101)), 100)).toMatchObject({ tool: 'typed', bytes: 101 });
    expect(planOffload(call('typed', 'tasks/result'), policy, message(text(101)), 100)).toMatchObject({ tool: 'typed' });
    expect(planOffload(call('typed'), policy, message(text(100)), 100)).toBeUndefined();
  });

  it('leaves tools without a configured outputSchema, errors, non-final results and other methods on the main thread', () => {
    expect(planOffload(call('plain'), policy, message(text(500)), 100)).toBeUndefined();
    expect(planOffload(call('unknown'), policy, message(text(500)), 100)).toBeUndefined();
    expect(planOffload(call('typed'), policy, message({ ...text(500), isError: true }), 100)).toBeUndefined();
    expect(planOffload(call('typed'), policy, message({ ...text(500), resultType: 'input_required' }), 100)).toBeUndefined();
    expect(planOffload(call('typed', 'tools/list'), policy, message(text(500)), 100)).toBeUndefined();
    expect(planOffload(call('typed'), policy, { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x'.repeat(500) } }, 100)).toBeUndefined();
  });

  it('counts text blocks and embedded resources, and stops counting past the limit', () => {
    const result = { content: [{ type: 'text', text: 'ab' }, { type: 'image', data: 'x'.repeat(50) }, { type: 'resource', resource: { uri: 'u', text: 'cde' } }] };
    expect(textLength(result, 100)).toBe(5);
    expect(textLength({ content: [{ type: 'text', text: 'x'.repeat(10) }, { type: 'text', text: 'y' }] }, 5)).toBe(10);
    expect(textLength({ content: 'nope' }, 5)).toBe(0);
  });
});

describe('splicing worker bytes', () => {
  const bytes = Buffer.from('{"structuredContent":{"a":"é"}}');

  it('puts the result bytes into the envelope, other members kept', () => {
    const out = spliceResult({ jsonrpc: '2.0', id: 'x', result: { old: true }, _meta: { k: 1 } }, bytes);
    expect(JSON.parse(out.toString('utf8'))).toEqual({ jsonrpc: '2.0', id: 'x', _meta: { k: 1 }, result: { structuredContent: { a: 'é' } } });
    expect(spliceResult({ result: {} }, bytes).toString('utf8')).toBe('{"result":{"structuredContent":{"a":"é"}}}');
  });

  it('joins bytes and values into a batch or the one message', () => {
    expect(joinMessages([bytes, { b: 1 }], true).toString('utf8')).toBe('[{"structuredContent":{"a":"é"}},{"b":1}]');
    expect(joinMessages([bytes], false)).toEqual(bytes);
  });

  it('frames bytes as one SSE data line, keeping the event fields', () => {
    expect(encodeEvent({ id: '7', event: 'message', comments: ['c'] }, bytes).toString('utf8')).toBe(':c\nevent: message\nid: 7\ndata: {"structuredContent":{"a":"é"}}\n\n');
  });
});
