/**
 * Regression: a stdio child answering a pending request with an invalid message (`"jsonrpc": "1.0"` and that
 * id, `result` and `error` both, neither, a result whose `_meta` the SDK clients' schema refuses) had the request taken off the pending table and the message
 * discarded (or passed on, for a strict client to drop): the client was never answered, not even at
 * timeoutMs. Now an answer to an awaited request that a strict client would not take gets the client a
 * RETROFIT_ERR_UPSTREAM_PROTOCOL error for that id at once — parsed on the event loop or, for a large answer
 * to a retrofitted tool, first handed to the worker — in an owned session and in share mode alike.
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { echoCall, openSession, post, sessionHeaders } from './harness.js';

// Each tools/call names in its text how the child answers it.
const child = rawChild(`(m, out) => {
  const id = JSON.stringify(m.id);
  const content = { content: [{ type: 'text', text: '{"ok":true}' }] };
  switch (m.params.arguments.text) {
    case 'jsonrpc-1.0': return out({ jsonrpc: '1.0', id: m.id, result: content });
    case 'result-and-error': return out({ jsonrpc: '2.0', id: m.id, result: content, error: { code: 1, message: 'both' } });
    case 'neither': return out({ jsonrpc: '2.0', id: m.id });
    case 'error-not-an-object': return out({ jsonrpc: '2.0', id: m.id, error: 'oops' });
    case 'result-not-an-object': return out({ jsonrpc: '2.0', id: m.id, result: 42 });
    case 'unknown-key': return out({ jsonrpc: '2.0', id: m.id, result: content, extra: true });
    case 'meta-not-an-object': return out({ jsonrpc: '2.0', id: m.id, result: { ...content, _meta: 'x' } });
    case 'progress-token-1.5': return out({ jsonrpc: '2.0', id: m.id, result: { ...content, _meta: { progressToken: 1.5 } } });
    case 'in-a-batch': return out('[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}},{"jsonrpc":"1.0","id":' + id + ',"result":{}}]');
    case 'large-result-and-error': return out({ jsonrpc: '2.0', id: m.id, error: { code: 1, message: 'both' }, result: { content: [{ type: 'text', text: '{"ok":true,"pad":"' + 'x'.repeat(300 * 1024) + '"}' }] } });
    default: return out({ jsonrpc: '2.0', id: m.id, result: content });
  }
}`);

const SHAPES = ['jsonrpc-1.0', 'result-and-error', 'neither', 'error-not-an-object', 'result-not-an-object', 'unknown-key', 'meta-not-an-object', 'progress-token-1.5', 'in-a-batch', 'large-result-and-error'];
const PROTOCOL_ERROR = { code: -32002, message: 'upstream "fixture" sent an invalid response', data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } };
// A configured schema: the large answer goes to the retrofit worker unparsed first.
const TOOLS = { echo: { outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } };

describe.each([
  ['an owned session', false],
  ['share mode', true],
])('regression: an invalid answer from a stdio child, %s', (_label, share) => {
  it('gets the client UPSTREAM_PROTOCOL for that id at once, and the session goes on', async () => {
    // timeoutMs far beyond the test: an answer that only came at the deadline would fail it.
    const gateway = await startStdioGateway({ args: rawArgs(child), tools: TOOLS, upstream: { share, timeoutMs: 120_000 }, stdio: { killTimeoutMs: 1_000 } });
    const h = sessionHeaders(await openSession(gateway.url));
    const answers = await Promise.all(SHAPES.map((shape) => post(gateway.url, echoCall(shape, shape), h)));
    SHAPES.forEach((shape, i) => expect(answers[i]!.messages.find((m) => m.id === shape), shape).toEqual({ jsonrpc: '2.0', id: shape, error: PROTOCOL_ERROR }));
    expect(gateway.logs.filter((l) => l.msg === 'upstream answered with an invalid JSON-RPC response; the client gets an error').map((l) => l.id)).toHaveLength(SHAPES.length);
    const fine = await post(gateway.url, echoCall('fine', 'fine'), h);
    expect(fine.messages.find((m) => m.id === 'fine')).toMatchObject({ result: { structuredContent: { ok: true } } });
  });
});
