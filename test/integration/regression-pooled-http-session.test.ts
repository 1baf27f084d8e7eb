/**
 * Regressions of pooled sessions over HTTP (2026-07-28 clients of a session-only upstream), found by
 * `npm run faults` on the stateless-http target.
 *
 * Kind upstream-killed then any request, seed 603652638: a pooled session of a session-only HTTP upstream that the upstream had forgotten (it
 * restarted: 404 for the session) was lent once more, and the 2026-07-28 request that found it got
 * RETROFIT_ERR_UPSTREAM_UNREACHABLE though the upstream never saw it. A 404 for the session means nothing of
 * the request reached the upstream: it now goes once more, on a new session, and the client gets its answer.
 *
 * Kind endless / invalid-answer: a JSON answer body that did not answer the request (not JSON, another id) left
 * the request waiting until timeoutMs. The body was its answer: the request now gets UPSTREAM_PROTOCOL at once.
 *
 * A 202 (no body) to a request left it waiting until timeoutMs too: 202 answers only notifications and
 * responses, so no answer would ever come. The request now gets UPSTREAM_PROTOCOL at once ("HTTP 202 to a request").
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

/** A Streamable HTTP upstream of session revisions that can forget every session it made (a restart). */
async function forgetfulUpstream(): Promise<{ url: string; forget: () => void; initializes: () => number }> {
  let known = new Set<string>();
  let made = 0;
  const up = await listen((req, res) => {
    void readBody(req).then((body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const m = JSON.parse(body.toString()) as { id?: number; method: string; params?: { name?: string; protocolVersion?: string } };
      const json = (value: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(200, { 'content-type': 'application/json', ...headers });
        res.end(JSON.stringify(value));
      };
      if (m.method === 'initialize') {
        const session = `s${++made}`;
        known.add(session);
        return json({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'forgetful', version: '1' } } }, { 'mcp-session-id': session });
      }
      const session = req.headers['mcp-session-id'];
      if (typeof session !== 'string' || !known.has(session)) return void res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id ?? null, error: { code: -32001, message: 'Session not found' } }));
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'tools/list') return json({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
      if (m.method === 'tools/call' && m.params?.name === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":');
      if (m.method === 'tools/call' && m.params?.name === 'accepted') return void res.writeHead(202).end();
      if (m.method === 'tools/call' && m.params?.name === 'other-id') return json({ jsonrpc: '2.0', id: 'not-yours', result: { content: [] } });
      if (m.method === 'tools/call') return json({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: `from ${session}` }] } });
      json({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
    });
  });
  return { url: `${up.origin}/mcp`, forget: () => (known = new Set()), initializes: () => made };
}

describe('regression: a pooled session the upstream forgot', () => {
  it('is not the end of the 2026-07-28 request that finds it: the request goes again on a new session', async () => {
    const up = await forgetfulUpstream();
    const gw = await startGateway(gatewayConfig([httpUpstream('forgetful', up.url)]));
    const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(gw.url('/forgetful/mcp'))));

    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'from s1' }]);
    up.forget();
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'from s2' }]);
    expect(up.initializes()).toBe(2);
    expect(gw.logs.filter((l) => l.msg === 'a pooled session the upstream had ended was lent; the call goes again on a new one')).toHaveLength(1);
  });

  it('answers a request its JSON answer body did not answer with UPSTREAM_PROTOCOL at once, not at its deadline', async () => {
    const up = await forgetfulUpstream();
    // A deadline the test would time out long before: an answer means it came at once.
    const gw = await startGateway(gatewayConfig([httpUpstream('forgetful', up.url, { timeoutMs: 600_000 })]));
    const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(gw.url('/forgetful/mcp'))));
    for (const name of ['garbage', 'other-id']) {
      await expect(client.callTool({ name, arguments: {} })).rejects.toThrow('upstream "forgetful" sent an invalid response');
    }
    expect(gw.logs.filter((l) => l.msg === "the upstream's JSON answer did not answer the request")).toHaveLength(2);
    // The session goes on.
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'from s1' }]);
  });

  it('answers a request the upstream answered 202 (no body) with UPSTREAM_PROTOCOL at once, not at its deadline', async () => {
    const up = await forgetfulUpstream();
    // A deadline the test would time out long before: an answer means it came at once.
    const gw = await startGateway(gatewayConfig([httpUpstream('forgetful', up.url, { timeoutMs: 600_000 })]));
    const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(gw.url('/forgetful/mcp'))));
    await expect(client.callTool({ name: 'accepted', arguments: {} })).rejects.toThrow('upstream "forgetful" sent an invalid response');
    expect(gw.logs.filter((l) => l.msg === 'the upstream answered a request with no message').map((l) => l.status)).toEqual([202]);
    // The session goes on: the notifications the client sent were answered 202 and are no fault.
    expect((await client.callTool({ name: 'echo', arguments: {} })).content).toEqual([{ type: 'text', text: 'from s1' }]);
  });
});
