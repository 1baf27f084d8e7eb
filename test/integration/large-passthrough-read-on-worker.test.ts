import { afterEach, describe, expect, it } from 'vitest';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';
import { connectV1Client } from '../helpers/v1-client.js';

/**
 * A stdio line past 256 KiB that nothing rewrites — a passthrough tool's answer, a log notification, an invalid
 * answer, a tool's own structuredContent — is read on the worker (src/pipeline/offload/inspect.ts), not parsed
 * on the event loop: the session decides by the stub the worker gives back, and the bytes go on as they came.
 * In share mode a line that is not an answer is first sorted out on the worker for routing.
 * A tool's own structuredContent the client's revision takes as it is passes unread; one that must change (no
 * structuredContent before 2025-06-18) is projected on the worker too.
 */
const BIG = 600_000;
const child = rawChild(`(m, out) => {
  const big = 'x'.repeat(${BIG});
  if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [
    { name: 'big', inputSchema: { type: 'object' } },
    { name: 'big-note', inputSchema: { type: 'object' } },
    { name: 'big-invalid', inputSchema: { type: 'object' } },
    { name: 'big-typed', inputSchema: { type: 'object' }, outputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  ] } });
  const name = m.params && m.params.name;
  if (name === 'big') return out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: big }] } });
  if (name === 'big-note') {
    out({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: big } });
    return out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'noted' }] } });
  }
  if (name === 'big-invalid') return out({ jsonrpc: '1.0', id: m.id, result: { content: [{ type: 'text', text: big }] } });
  if (name === 'big-typed') return out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'typed' }], structuredContent: { text: big } } });
  out({ jsonrpc: '2.0', id: m.id, result: {} });
}`);

const READ_ON_WORKER = 'a large message read on a worker';
const PARSED_AFTER_ALL = 'a large message read on a worker must be read whole: parsed on the event loop';
const PROJECTED_ON_WORKER = 'structuredContent projected on a worker';
let gw: StdioGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe.each([
  ['its own child', false],
  ['a shared child (share: true)', true],
])('a large stdio line nothing rewrites, %s', (_label, share) => {
  it('reaches a v1 client as the child wrote it, read on the worker; an invalid answer becomes an error', async () => {
    gw = await startStdioGateway({ args: rawArgs(child), ...(share && { upstream: { share } }) });
    const { client, logs } = await connectV1Client(gw.url);
    await client.listTools();

    const big = await client.callTool({ name: 'big', arguments: {} });
    expect(big.content).toEqual([{ type: 'text', text: 'x'.repeat(BIG) }]);

    const noted = await client.callTool({ name: 'big-note', arguments: {} });
    expect(noted.content).toEqual([{ type: 'text', text: 'noted' }]);
    expect(logs).toEqual(['x'.repeat(BIG)]);

    // jsonrpc "1.0": a strict client would drop it and wait for ever; the worker's reading says so.
    await expect(client.callTool({ name: 'big-invalid', arguments: {} })).rejects.toThrow('upstream "fixture" sent an invalid response');
    const warned = gw.logs.find((l) => l.msg === 'upstream answered with an invalid JSON-RPC response; the client gets an error');
    expect(warned?.problem).toBe('jsonrpc is not "2.0"');

    // The answer, the notification and the invalid answer each read on the worker. In share mode the two
    // lines that are not an answer with the gateway's id at an end are sorted out on the worker first, and
    // reach their sessions as bytes too (the invalid answer's id restored).
    expect(gw.logs.filter((l) => l.msg === READ_ON_WORKER)).toHaveLength(3);
    expect(gw.logs.filter((l) => l.msg === 'share mode: a long line sorted out on a worker')).toHaveLength(share ? 2 : 0);
  });
});

describe('a large answer holding structuredContent of a tool without a configured schema', () => {
  it('is projected on the worker for a 2025-03-26 client (no structuredContent), and passed unread to a 2025-06-18 one', async () => {
    gw = await startStdioGateway({ args: rawArgs(child) });
    const results: Record<string, Record<string, unknown>> = {};
    for (const revision of ['2025-03-26', '2025-06-18']) {
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': revision };
      const init = await fetch(gw.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }) });
      const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')! };
      await init.text();
      await (await fetch(gw.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
      await (await fetch(gw.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) })).text();
      const call = await fetch(gw.url, { method: 'POST', headers: session, body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'big-typed', arguments: {} } }) });
      const text = await call.text();
      const data = /^data: (.*)$/m.exec(text)?.[1] ?? text;
      if (!data.includes('"result"')) throw new Error(`${revision}: ${data.slice(0, 300)}`);
      results[revision] = (JSON.parse(data) as { result: Record<string, unknown> }).result;
    }
    expect(results['2025-03-26']).toEqual({ content: [{ type: 'text', text: 'typed' }] });
    expect(results['2025-06-18']).toEqual({ content: [{ type: 'text', text: 'typed' }], structuredContent: { text: 'x'.repeat(BIG) } });
    // Both read on the worker first; the first, whose answer changes, projected there too: none parsed here.
    expect(gw.logs.filter((l) => l.msg === READ_ON_WORKER)).toHaveLength(2);
    expect(gw.logs.filter((l) => l.msg === PROJECTED_ON_WORKER).map((l) => l.tool)).toEqual(['big-typed']);
    expect(gw.logs.filter((l) => l.msg === PARSED_AFTER_ALL)).toHaveLength(0);
  });
});
