/**
 * Regression: a `url:` upstream (or a proxy in front of it) that answered a POST of requests with something
 * other than JSON or SSE — a 502 HTML page, a 202, a text/plain error — left that POST's requests in its
 * session's pending table for 15 minutes: the answer was piped to the client, and nothing took them off. A
 * client naming a fresh session id per POST (the gateway keeps 10,000) with 1,000 requests of long tool names
 * each grew the gateway's heap until it died. Now the requests of a POST answered that way are forgotten as its
 * answer is piped, whatever it is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen } from '../helpers/listen.js';

const before = process.env.MCP_RETROFIT_DEBUG;
afterEach(() => {
  if (before === undefined) delete process.env.MCP_RETROFIT_DEBUG;
  else process.env.MCP_RETROFIT_DEBUG = before;
});

/** Answers every POST by its path: a 502 HTML page, a 202 without a body, or a text/plain 500. */
async function upstream(): Promise<string> {
  const { origin } = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/html/mcp') res.writeHead(502, { 'content-type': 'text/html' }).end('<html><body>Bad gateway</body></html>');
      else if (req.url === '/accepted/mcp') res.writeHead(202).end();
      else res.writeHead(500, { 'content-type': 'text/plain' }).end('oops');
    });
  });
  return origin;
}

describe('regression: requests answered with neither JSON nor SSE', () => {
  it.each(['html', 'accepted', 'plain'])('are not awaited any longer (%s)', async (kind) => {
    process.env.MCP_RETROFIT_DEBUG = '1';
    const origin = await upstream();
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${origin}/${kind}/mcp`, { tools: { t: { outputSchema: { type: 'object' } } } })]));
    const calls = Array.from({ length: 50 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: i % 2 ? 't' : 'other', arguments: {} } }));
    for (let n = 0; n < 3; n++) {
      const res = await fetch(gw.url('/up/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': `made-up-${n}` },
        body: JSON.stringify(calls),
      });
      await res.arrayBuffer();
      expect(res.status).toBe(kind === 'html' ? 502 : kind === 'accepted' ? 202 : 500);
    }
    const counts = (await (await fetch(gw.url('/debug/retrofit'))).json()) as { proxiedSessions: number; proxiedPending: number };
    expect(counts.proxiedPending).toBe(0);
  });
});
