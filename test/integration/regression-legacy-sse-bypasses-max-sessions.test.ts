/**
 * Regression: legacy HTTP+SSE clients never passed `maxSessions` — their GETs were admitted without asking —
 * so a third legacy client got in past `maxSessions: 2`, each holding a connection to the upstream. Now legacy
 * connections and Streamable HTTP sessions of an `sse:` upstream count against the same bound; a client
 * beyond it gets 503 RETROFIT_ERR_TOO_MANY_SESSIONS, and a slot frees when a stream closes.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startEverythingSse } from '../helpers/everything-sse.js';
import { requestLines, startGateway } from '../helpers/gateway.js';
import { readBody } from '../helpers/listen.js';

/** A legacy client's GET: resolves with the response once its headers (and, when 200, its endpoint event) arrive. */
function legacyGet(url: string): Promise<{ res: IncomingMessage; first: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) return void readBody(res).then((b) => resolve({ res, first: b.toString('utf8') }), reject);
      res.once('data', (chunk: Buffer) => resolve({ res, first: chunk.toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
    onTestFinished(() => void req.destroy());
  });
}

describe('regression: maxSessions and legacy SSE clients', () => {
  it('the client past maxSessions gets 503, legacy and Streamable HTTP alike; a closed stream frees its slot', async () => {
    const upstream = await startEverythingSse();
    onTestFinished(() => upstream.close());
    const gw = await startGateway(gatewayConfig([sseUpstream('legacy', upstream.url, { maxSessions: 2 })]));
    const url = gw.url('/legacy/mcp');
    const a = await legacyGet(url);
    const b = await legacyGet(url);
    expect([a.res.statusCode, b.res.statusCode]).toEqual([200, 200]);
    expect(a.first).toContain('event: endpoint');

    const third = await legacyGet(url);
    expect(third.res.statusCode).toBe(503);
    expect(JSON.parse(third.first)).toMatchObject({ error: { data: { code: 'RETROFIT_ERR_TOO_MANY_SESSIONS' } } });
    // A Streamable HTTP client of the same upstream counts against the same bound.
    const init = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
    });
    expect(init.status).toBe(503);

    const closed = new Promise<void>((resolve) => a.res.once('close', () => resolve()));
    a.res.destroy();
    await closed;
    // The gateway sees the close on its side a moment later: its exchange line says so.
    await vi.waitFor(() => expect(requestLines(gw.logs).filter((l) => l.method === 'GET' && l.status === 200)).toHaveLength(1));
    const again = await legacyGet(url);
    expect(again.res.statusCode).toBe(200);
  });
});
