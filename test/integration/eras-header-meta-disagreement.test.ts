import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { configuredTools, startV2NativeServer } from '../helpers/eras-tools.js';
import { requestLines, startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

/**
 * A 2026-07-28 request whose MCP-Protocol-Version header disagrees with its `_meta` revision: the gateway
 * changes nothing (not the request, not the answer) and lets the upstream answer.
 */
const META = 'io.modelcontextprotocol/protocolVersion';

function disagreeing(method: 'tools/call' | 'tools/list', header: string, meta: string): { headers: Record<string, string>; body: string } {
  const _meta = { [META]: meta, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
  const params = method === 'tools/call' ? { name: 'users', arguments: {}, _meta } : { _meta };
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': header,
      'mcp-method': method,
      ...(method === 'tools/call' && { 'mcp-name': 'users' }),
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
  };
}

async function post(url: string, request: { headers: Record<string, string>; body: string }): Promise<{ status: number; body: string }> {
  const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  return { status: response.status, body: await response.text() };
}

describe('MCP-Protocol-Version header and _meta revision disagree', () => {
  it('a v2 SDK upstream answers 400 / -32020, and the client gets exactly that through the gateway', async () => {
    const upstream = await startV2NativeServer();
    const gw = await startGateway(gatewayConfig([httpUpstream('native', upstream.url, { tools: configuredTools() })]));
    for (const method of ['tools/call', 'tools/list'] as const) {
      const request = disagreeing(method, '2025-11-25', '2026-07-28');
      const direct = await post(upstream.url, request);
      expect(direct.status).toBe(400);
      expect(JSON.parse(direct.body)).toMatchObject({ error: { code: -32020 } });
      const proxied = await post(gw.url('/native/mcp'), request);
      expect(proxied).toEqual(direct);
    }
  });

  it('an upstream that answers anyway gets its result passed through unchanged, in both directions of disagreement', async () => {
    const answers: Record<string, unknown> = {
      'tools/call': { content: [{ type: 'text', text: '[{"id":1,"name":"Ada"}]' }] },
      'tools/list': { tools: [{ name: 'users', inputSchema: { type: 'object' } }] },
    };
    const received: string[] = [];
    const upstream = await listen((req, res) => {
      void readBody(req).then((body) => {
        received.push(body.toString('utf8'));
        const message = JSON.parse(body.toString('utf8')) as { id: number; method: string };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: answers[message.method] }));
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`, { tools: configuredTools() })]));

    for (const [header, meta] of [['2025-11-25', '2026-07-28'], ['2026-07-28', '2025-06-18']] as const) {
      for (const method of ['tools/call', 'tools/list'] as const) {
        const request = disagreeing(method, header, meta);
        const proxied = await post(gw.url('/up/mcp'), request);
        expect(proxied.status).toBe(200);
        expect(JSON.parse(proxied.body)).toEqual({ jsonrpc: '2.0', id: 7, result: answers[method] });
        expect(received.at(-1)).toBe(request.body);
      }
    }
    // Agreeing header and _meta are retrofitted as usual (the same upstream, the same config).
    const agreeing = disagreeing('tools/call', '2026-07-28', '2026-07-28');
    expect(JSON.parse((await post(gw.url('/up/mcp'), agreeing)).body)).toMatchObject({ result: { structuredContent: [{ id: 1, name: 'Ada' }] } });
    expect(requestLines(gw.logs).length).toBe(5);
  });
});
