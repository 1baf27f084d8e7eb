/**
 * Regression: the `_meta` / header disagreement rule (a request whose `_meta` revision and
 * MCP-Protocol-Version header name different revisions is left alone) was applied on the HTTP path only. It
 * lives in the session core now, the same for stdio and legacy SSE sessions: the configured tool's text
 * answer comes back exactly as the upstream sent it, no structuredContent added.
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startEverythingSse } from '../helpers/everything-sse.js';

const META = 'io.modelcontextprotocol/protocolVersion';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function dataOf(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

describe('regression: header and _meta revisions disagree on a gateway-owned session', () => {
  it('stdio: the answer is the upstream\'s, untouched', async () => {
    const gateway = await startStdioGateway({ tools: { echo: { outputSchema: { type: 'string' } } } });
    const init = await fetch(gateway.url, { method: 'POST', headers: HEADERS, body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }) });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    const call = (meta?: string) =>
      fetch(gateway.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: meta ? 2 : 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, ...(meta && { _meta: { [META]: meta } }) } }) }).then(async (r) => dataOf(await r.text()).find((m) => 'result' in m)!);
    // Agreeing: retrofitted (a string root, wrapped for 2025-11-25).
    expect(await call()).toMatchObject({ result: { structuredContent: { result: 'hi' } } });
    // Disagreeing: exactly what the child said.
    expect(await call('2025-06-18')).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hi' }] } });
  });

  it('legacy SSE: the answer on the stream is the upstream\'s, untouched', async () => {
    const upstream = await startEverythingSse();
    const gw = await startGateway(gatewayConfig([sseUpstream('legacy', upstream.url, { tools: { echo: { outputSchema: { type: 'string' } } } })]));
    const controller = new AbortController();
    const res = await fetch(gw.url('/legacy/mcp'), { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const until = async (test: (messages: Record<string, unknown>[]) => boolean): Promise<Record<string, unknown>[]> => {
      while (!test(dataOf(text))) text += decoder.decode((await reader.read()).value);
      return dataOf(text);
    };
    while (!text.includes('\n\n')) text += decoder.decode((await reader.read()).value);
    const endpoint = /data: (\S+)/.exec(text)![1]!;
    const post = (body: unknown, header?: string) => fetch(gw.url(endpoint), { method: 'POST', headers: { ...HEADERS, ...(header && { 'mcp-protocol-version': header }) }, body: JSON.stringify(body) });
    await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    await until((m) => m.some((x) => x.id === 0));
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { message: 'agree' } } }, '2025-11-25');
    await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'disagree' }, _meta: { [META]: '2025-06-18' } } }, '2025-11-25');
    const messages = await until((m) => m.some((x) => x.id === 1) && m.some((x) => x.id === 2));
    expect(messages.find((m) => m.id === 1)).toMatchObject({ result: { structuredContent: { result: 'Echo: agree' } } });
    const disagreeing = messages.find((m) => m.id === 2) as { result: Record<string, unknown> };
    expect(disagreeing.result).not.toHaveProperty('structuredContent');
    expect(disagreeing.result.content).toEqual([{ type: 'text', text: 'Echo: disagree' }]);
    controller.abort();
  });
});
