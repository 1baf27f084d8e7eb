/**
 * Two concurrent client sessions on one stdio upstream get two child processes, and neither sees the
 * other's data. Closing the gateway leaves no child behind.
 */
import { describe, expect, it } from 'vitest';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { alive, connectV1, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';



const connect = (url: string) => connectV1(url, 'two-sessions');

describe('stdio upstream: one child per session', () => {
  it('gives each session its own child and its own state', async () => {
    const gateway = await startStdioGateway();
    const [a, b] = await Promise.all([connect(gateway.url), connect(gateway.url)]);

    const pidA = Number(firstText(await a.callTool({ name: 'pid', arguments: {} })));
    const pidB = Number(firstText(await b.callTool({ name: 'pid', arguments: {} })));
    expect(pidA).not.toBe(pidB);
    expect(gateway.routes.pids().sort()).toEqual([pidA, pidB].sort());
    expect(gateway.routes.sessions()).toBe(2);
    expect(await gateway.metrics.children.get()).toMatchObject({ values: [{ value: 2 }] });
    expect(await gateway.metrics.sessions.get()).toMatchObject({ values: [{ value: 2 }] });

    await Promise.all([
      a.callTool({ name: 'remember', arguments: { value: 'alpha' } }),
      b.callTool({ name: 'remember', arguments: { value: 'beta' } }),
      a.callTool({ name: 'remember', arguments: { value: 'alpha-2' } }),
    ]);
    expect(JSON.parse(firstText(await a.callTool({ name: 'recall', arguments: {} })))).toEqual(['alpha', 'alpha-2']);
    expect(JSON.parse(firstText(await b.callTool({ name: 'recall', arguments: {} })))).toEqual(['beta']);

    await gateway.close();
    expect(alive(pidA)).toBe(false);
    expect(alive(pidB)).toBe(false);
    expect(gateway.routes.pids()).toEqual([]);
  });

  it('ends the child when the client DELETEs its session', async () => {
    const gateway = await startStdioGateway();
    const client = await connect(gateway.url);
    const pid = Number(firstText(await client.callTool({ name: 'pid', arguments: {} })));
    const transport = client.transport as StreamableHTTPClientTransport;
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    // The session is gone at once; the child follows within the kill bound.
    const res = await fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId }, body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }) });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: -32001 } });
    await gateway.waitForLog((l) => l.msg === 'upstream child stopped' && l.pid === pid);
    expect(alive(pid)).toBe(false);
    expect(gateway.routes.sessions()).toBe(0);
    expect(await gateway.metrics.children.get()).toMatchObject({ values: [{ value: 0 }] });
  });
});
