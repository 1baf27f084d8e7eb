import { describe, expect, it } from 'vitest';
import { inspectMessage, stubOf } from '../../../../src/pipeline/offload/inspect.js';

/** What the worker gives back for a large message nothing rewrites (src/pipeline/offload/inspect.ts). */
describe('inspectMessage', () => {
  const big = 'x'.repeat(10_000);

  it('keeps what a session decides by and drops the bulk', () => {
    expect(stubOf({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: big }], isError: true, structuredContent: { text: big } } })).toEqual({ jsonrpc: '2.0', id: 7, result: { isError: true, content: [{ type: 'text' }], structuredContent: {} } });
    expect(stubOf({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: 1, message: big } })).toEqual({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't' } });
    expect(stubOf({ jsonrpc: '2.0', id: 'a', method: 'sampling/createMessage', params: { messages: [big], _meta: { progressToken: 3, other: big } } })).toEqual({ jsonrpc: '2.0', id: 'a', method: 'sampling/createMessage', params: { _meta: { progressToken: 3 } } });
    expect(stubOf({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4, reason: big } })).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 4 } });
    const error = stubOf({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: big, data: { code: 'X', detail: big } } });
    expect(error).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'x'.repeat(1024), data: { code: 'X' } } });
    // A container where a scalar belongs stays a container (what classifies it is its kind).
    expect(stubOf({ jsonrpc: { v: big }, id: [1], method: { m: 1 }, result: [big] })).toEqual({ jsonrpc: {}, id: [], method: {}, result: [] });
  });

  it('says what a strict client finds wrong with an answer, and gives an inexact id as written', () => {
    expect(inspectMessage(Buffer.from(JSON.stringify({ jsonrpc: '1.0', id: 1, result: { t: big } })))).toEqual({ kind: 'messages', batch: false, messages: [{ stub: { jsonrpc: '1.0', id: 1, result: {} }, problem: 'jsonrpc is not "2.0"' }] });
    expect(inspectMessage(`{"jsonrpc":"2.0","result":{"t":"${big}"},"id":12345678901234567890}`)).toMatchObject({ messages: [{ literal: '12345678901234567890' }] });
    // What a strict client refuses in a tools/call result, for the session to apply when it answers one.
    expect(inspectMessage(JSON.stringify({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: big }], isError: 'yes' } }))).toEqual({ kind: 'messages', batch: false, messages: [{ stub: { jsonrpc: '2.0', id: 2, result: { isError: 'yes', content: [{ type: 'text' }] } }, toolProblem: "a tool result's isError must be a boolean" }] });
    // A request is no answer: nothing to find wrong.
    expect(inspectMessage(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', extra: big }))).toEqual({ kind: 'messages', batch: false, messages: [{ stub: { jsonrpc: '2.0', id: 1, method: 'ping' } }] });
  });

  it('reads a batch element by element, and names what is no JSON or too deep', () => {
    const note = JSON.stringify({ jsonrpc: '2.0', method: 'n', params: { data: big } });
    // Each message's span: where its own bytes lie in the data (what a session routing them apart sends).
    expect(inspectMessage(`[${note},3]`)).toEqual({ kind: 'messages', batch: true, messages: [{ stub: { jsonrpc: '2.0', method: 'n', params: {} }, span: [1, 1 + note.length] }, {}] });
    const bytes = Buffer.from(`[ {"jsonrpc":"2.0","method":"é"} ,\n{"jsonrpc":"2.0","id":1,"result":{}}]`);
    const inspected = inspectMessage(bytes);
    const spans = inspected.kind === 'messages' ? inspected.messages.map((m) => m.span!) : [];
    expect(spans.map(([s, e]) => bytes.subarray(s, e).toString())).toEqual(['{"jsonrpc":"2.0","method":"é"}', '{"jsonrpc":"2.0","id":1,"result":{}}']);
    expect(inspectMessage(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":{"t":"${big}"`))).toEqual({ kind: 'invalid' });
    expect(inspectMessage(`{"jsonrpc":"2.0","id":1,"result":${'['.repeat(5_000)}${']'.repeat(5_000)}}`)).toEqual({ kind: 'deep' });
  });
});
