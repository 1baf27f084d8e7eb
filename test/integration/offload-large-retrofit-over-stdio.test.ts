import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { compileUpstreamPolicy } from '../../src/policy/compile.js';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';
import { connectV1Client } from '../helpers/v1-client.js';

/**
 * A stdio child answering with 5 MB of text, retrofitted on the worker thread for a v1 client: the
 * structuredContent equals what the synchronous engine makes of it. The line reaches the worker as the bytes it
 * came in (shared memory), whether the child is the session's own or shared. A small answer the child writes after
 * the large one reaches the client after it too: its retrofit waits until the large one was delivered.
 */
const tools = { huge: { outputSchema: { type: 'string' } }, echo: { outputSchema: { type: 'string' } } } as const;
let gw: StdioGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe.each([
  ['its own child', false],
  ['a shared child (share: true)', true],
])('a 5 MB stdio result retrofitted on the worker thread, %s', (_label, share) => {
  it('reaches the v1 client as the synchronous engine makes it, and the child order is kept', async () => {
    gw = await startStdioGateway({ tools, cwd: process.cwd(), ...(share && { upstream: { share } }) });
    const { client } = await connectV1Client(gw.url);
    await client.listTools();
    const bytes = 5_000_000;
    const big = client.callTool({ name: 'huge', arguments: { bytes } });
    // The small call is sent once the large answer is on the worker, so the child answers it second.
    // As bytes, never decoded on the event loop (a shared child's answer too: its id rewritten in place).
    await gw.waitForLog((l) => l.msg === 'retrofit offloaded to a worker' && l.unparsed === true && l.input === 'bytes');
    const small = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const large = await big;

    const upstream: JsonObject = { content: [{ type: 'text', text: 'x'.repeat(bytes) }] };
    const policy = compileUpstreamPolicy(gw.upstream, { onInvalid: 'error', legacyRoots: 'wrap', coerce: true }).policy;
    const expected = rewriteToolCall(upstream, 'huge', policy, '2025-11-25').result;
    expect(large.structuredContent).toEqual(expected.structuredContent);
    expect((large.structuredContent as { result: string }).result).toHaveLength(bytes);
    expect(small.structuredContent).toEqual({ result: 'hi' });

    expect(await gw.metrics.offloads.get()).toMatchObject({ values: [{ labels: { result: 'worker' }, value: 1 }] });
    // The small answer's retrofit ran only after the large one was delivered (its line waited its turn).
    const order = gw.logs.filter((l) => l.msg === 'retrofit').map((l) => l.tool);
    expect(order).toEqual(['huge', 'echo']);
  });
});

describe('a large rewritten stdio result on a resumable stream', () => {
  it('is stored as the pieces it was written in and replayed whole to a client that resumes with Last-Event-ID', async () => {
    gw = await startStdioGateway({ tools: { 'huge-after-ask': { outputSchema: { type: 'string' } } }, cwd: process.cwd() });
    const revision = '2025-11-25';
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': revision };
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: revision, capabilities: { sampling: {} }, clientInfo: { name: 'resumer', version: '1' } } };
    const init = await fetch(gw.url, { method: 'POST', headers, body: JSON.stringify(initialize) });
    const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')! };
    await init.text();
    await (await fetch(gw.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();

    // The call's stream is read up to the server's sampling request, then dropped; the client answers that
    // request, and the result (past 256 KiB: from the worker, written as pieces) is sent while it is away.
    const bytes = 400_000;
    const dropped = new AbortController();
    const call = await fetch(gw.url, { method: 'POST', headers: session, signal: dropped.signal, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'huge-after-ask', arguments: { bytes } } }) });
    const reader = call.body!.getReader();
    let seen = '';
    while (!/"method":"sampling\/createMessage".*\n\n/s.test(seen)) seen += new TextDecoder().decode((await reader.read()).value);
    dropped.abort();
    const ids = [...seen.matchAll(/^id: (\S+)$/gm)].map((m) => m[1]!);
    const ask = JSON.parse(/^data: (\{.*"sampling\/createMessage".*)$/m.exec(seen)![1]!) as { id: number };
    const answered = await fetch(gw.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: ask.id, result: { role: 'assistant', content: { type: 'text', text: 'yes' }, model: 'm' } }) });
    expect(answered.status).toBe(202);
    await gw.waitForLog((l) => l.msg === 'retrofit' && l.tool === 'huge-after-ask');

    const resumed = await fetch(gw.url, { headers: { ...session, accept: 'text/event-stream', 'last-event-id': ids[ids.length - 1]! } });
    expect(resumed.status).toBe(200);
    const events = (await resumed.text()).split('\n\n').filter((e) => e.includes('data: '));
    expect(events).toHaveLength(1);
    const message = JSON.parse(/^data: (.*)$/m.exec(events[0]!)![1]!) as { id: number; result: { structuredContent: { result: string } } };
    expect(message.id).toBe(2);
    expect(message.result.structuredContent.result).toBe('x'.repeat(bytes));
  });
});
