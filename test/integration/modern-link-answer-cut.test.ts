/**
 * A session-era client in front of a 2026-07-28-only upstream (src/upstream/modern-link.ts) whose answer stream
 * breaks: cut mid-event, reset before any event, or ended cleanly without the call's result. The client's
 * request gets its JSON-RPC error at once (UPSTREAM_RESET for a break, UPSTREAM_PROTOCOL for an answer that
 * ended without a result), never at timeoutMs, and the session goes on serving.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startRawModern, writeJson, type ModernCall } from '../helpers/raw-modern.js';

function answer(m: ModernCall, res: ServerResponse): void {
  if (m.name === 'cut') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('event: message\ndata: {"jsonrpc":"2.0","id":');
    return void setImmediate(() => res.destroy());
  }
  if (m.name === 'reset') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    return void setImmediate(() => res.destroy());
  }
  if (m.name === 'nothing') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    return void res.end(': nothing here\n\n');
  }
  writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'fine' }] } });
}

describe('a 2026-07-28-only upstream whose answer stream breaks', () => {
  it('answers the call at once (not at timeoutMs) and the session goes on', async () => {
    // timeoutMs is 20 s and the client waits 30 s: an answer at the deadline would be UPSTREAM_TIMEOUT, so the
    // codes below say each answer came from the break itself (no clock is read here).
    const url = await startRawModern(['cut', 'reset', 'nothing', 'fine'], answer);
    const gw = await startGateway(gatewayConfig([httpUpstream('modern', url, { timeoutMs: 20_000 })]));
    const client = new Client({ name: 'v1', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/modern/mcp'))));
    onTestFinished(() => client.close());
    const failure = async (name: string): Promise<string | undefined> => {
      try {
        await client.callTool({ name, arguments: {} }, undefined, { timeout: 30_000 });
        return undefined;
      } catch (err) {
        return (err as { data?: { code?: string } }).data?.code;
      }
    };
    for (const [name, code] of [['cut', 'RETROFIT_ERR_UPSTREAM_RESET'], ['reset', 'RETROFIT_ERR_UPSTREAM_RESET'], ['nothing', 'RETROFIT_ERR_UPSTREAM_PROTOCOL']] as const) {
      expect(await failure(name), name).toBe(code);
    }
    const fine = await client.callTool({ name: 'fine', arguments: {} });
    expect(fine.content).toEqual([{ type: 'text', text: 'fine' }]);
  });
});
