/**
 * Regression: an `sse:` upstream whose event stream says anything before its endpoint event (a comment such as
 * `: connected`, a `retry:` line) could not be reached by a legacy HTTP+SSE client through the gateway: those
 * bytes were written to the client's stream before its headers (an implicit 200 without a content type), and
 * the headers that followed threw ERR_HTTP_HEADERS_SENT, which ended the connection. Now what comes before the
 * endpoint event waits for the stream's headers (64 KiB of it at most) and reaches the client before the
 * gateway's own endpoint event, in its order.
 */
import { request, type IncomingMessage } from 'node:http';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { rawLegacyUpstream } from '../helpers/raw-legacy.js';

const PRELUDE = ': connected\n\nretry: 3000\n\n';

describe('regression: an sse: upstream that says something before its endpoint event', () => {
  it('serves a legacy client: the prelude, then the gateway\'s endpoint event, on a stream with its headers', async () => {
    const up = await rawLegacyUpstream((body, res, upstream) => {
      res.writeHead(202).end();
      for (const m of Array.isArray(body) ? body : [body]) {
        if (m.method === 'initialize') upstream.initialized(m.id);
        if (m.method === 'tools/list') upstream.event(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } }));
      }
    }, PRELUDE);
    const gw = await startGateway(gatewayConfig([sseUpstream('legacy', up.url, { timeoutMs: 10_000 })]));

    const res = await new Promise<IncomingMessage>((resolve, reject) => request(gw.url('/legacy/mcp'), { headers: { accept: 'text/event-stream' } }, resolve).on('error', reject).end());
    onTestFinished(() => void res.destroy());
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/event-stream');
    let text = '';
    for await (const chunk of res as AsyncIterable<Buffer>) {
      text += chunk.toString('utf8');
      if (/sessionId=[^\n]+\n\n/.test(text)) break;
    }
    expect(text).toMatch(/^: connected\n\nretry: 3000\n\nevent: endpoint\ndata: \/legacy\/mcp\/message\?sessionId=[^\n]+\n\n$/);

    const client = new Client({ name: 'legacy-client', version: '1' });
    await client.connect(new SSEClientTransport(new URL(gw.url('/legacy/mcp'))));
    onTestFinished(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(gw.logs.some((l) => JSON.stringify(l).includes('ERR_HTTP_HEADERS_SENT'))).toBe(false);
  });
});
