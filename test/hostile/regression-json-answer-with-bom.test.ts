/**
 * Regression: a `url:` upstream whose JSON answer starts with a UTF-8 byte order mark (fetch's `.json()` drops
 * it, so SDK clients take such an answer directly) got its client a 502 RETROFIT_ERR_UPSTREAM_PROTOCOL through
 * the gateway, with or without a configured schema. The request side already ignored a BOM; now the answer side
 * reads the JSON after it, and sends it on without it.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

describe('regression: a JSON answer that starts with a byte order mark', () => {
  it.each([
    ['typed', { structuredContent: { ok: true } }],
    ['plain', {}],
  ])('is read after the mark (%s)', async (tool, expected) => {
    const { origin } = await listen((req, res) => {
      void readBody(req).then((body) => {
        const m = JSON.parse(body.toString()) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' }).end(`\ufeff${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: '{"ok":true}' }] } })}`);
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${origin}/mcp`, { tools: { typed: { outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } } } })]));
    const res = await fetch(gw.url('/up/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: tool, arguments: {} } }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.startsWith('{')).toBe(true);
    expect(JSON.parse(text)).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: '{"ok":true}' }], ...expected } });
  });
});
