/**
 * Replicas behind a real nginx. A session the gateway holds (a `command` upstream here) lives in one replica:
 * its requests must reach that replica. Routing on a hash of `Mcp-Session-Id` is not enough — `initialize` has
 * no session id yet, so it lands wherever the empty string hashes, and the session it opens hashes elsewhere.
 * Each replica therefore starts its session ids with its own `sessionIdPrefix`, and nginx routes on that prefix
 * (a `map`), round-robin for requests without one. Shown both ways: with the map, a v1 client's whole session
 * (initialize, its GET stream, lists, calls, DELETE) is served by one replica while new sessions spread over
 * all three; with plain round-robin, the session's second request reaches another replica and gets 404. A
 * legacy HTTP+SSE client's POSTs carry the session in `?sessionId=`, which the same map reads. A 2026-07-28
 * client has no session: with plain round-robin its requests land on all three replicas, each serving them on
 * its own pooled upstream session.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { LEGACY_TOOLS, startLegacySdkServer } from '../helpers/legacy-sdk.js';
import { startNginx } from '../helpers/nginx.js';
import { startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';

const REPLICAS = ['r1', 'r2', 'r3'] as const;

async function replicas(): Promise<StdioGateway[]> {
  return Promise.all(REPLICAS.map((prefix) => startStdioGateway({ config: { sessionIdPrefix: prefix } })));
}

/** nginx in front of the replicas (their host:port): routed on the session id's prefix (`affinity`), or plain round-robin. */
function nginxConfig(hosts: readonly string[], affinity: boolean): string {
  const pool = `upstream pool { ${hosts.map((h) => `server ${h};`).join(' ')} }`;
  const own = hosts.map((h, i) => `upstream ${REPLICAS[i]} { server ${h}; }`).join('\n  ');
  // Streamable HTTP carries the session in Mcp-Session-Id; a legacy HTTP+SSE client's POSTs in ?sessionId=.
  const map = `map "$http_mcp_session_id$arg_sessionId" $mcp_replica { default pool; ${REPLICAS.map((r) => `~^${r}\\. ${r};`).join(' ')} }`;
  return `
  ${pool}
  ${own}
  ${affinity ? map : ''}
  server {
    listen 127.0.0.1:PORT;
    location / {
      proxy_pass http://${affinity ? '$mcp_replica' : 'pool'};
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
    }
  }`;
}

async function callEcho(client: Client, text: string): Promise<unknown> {
  const result = (await client.callTool({ name: 'echo', arguments: { text } })) as { content: { text: string }[] };
  return result.content[0]?.text;
}

describe('replicas behind nginx', () => {
  it('with the session id prefix routed, a whole session stays on the replica that holds it, and sessions spread', async () => {
    const gateways = await replicas();
    const nginx = await startNginx(nginxConfig(gateways.map((g) => new URL(g.url).host), true));
    const path = new URL(gateways[0]!.url).pathname;

    const clients: Client[] = [];
    for (let i = 0; i < REPLICAS.length; i++) {
      const client = new Client({ name: `c${i}`, version: '1.0.0' });
      onTestFinished(() => client.close());
      const transport = new StreamableHTTPClientTransport(new URL(`${nginx.origin}${path}`));
      await client.connect(transport);
      expect(transport.sessionId).toMatch(/^r[123]\.[0-9a-f-]{36}$/);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');
      for (let n = 0; n < 3; n++) expect(await callEcho(client, `c${i}-${n}`)).toBe(`c${i}-${n}`);
      clients.push(client);
    }
    // Round-robin spread the three initializes over the three replicas; each holds the one session it opened.
    expect(gateways.map((g) => g.routes.sessions())).toEqual([1, 1, 1]);
    // Every request of a session reached the replica named in its id: each replica saw its own session's calls.
    for (const g of gateways) {
      const calls = (await g.metrics.requests.get()).values.filter((v) => v.labels.method === 'tools/call').reduce((n, v) => n + v.value, 0);
      expect(calls).toBe(3);
    }
    // DELETE goes to the right replica too.
    for (const client of clients) await (client.transport as StreamableHTTPClientTransport).terminateSession();
    expect(gateways.map((g) => g.routes.sessions())).toEqual([0, 0, 0]);
    expect(nginx.errorLog()).not.toMatch(/\[(error|crit|alert|emerg)\]/);
  });

  it('with plain round-robin, the session is lost at its second request (404 from another replica)', async () => {
    const gateways = await replicas();
    const nginx = await startNginx(nginxConfig(gateways.map((g) => new URL(g.url).host), false));
    const path = new URL(gateways[0]!.url).pathname;
    const client = new Client({ name: 'rr', version: '1.0.0' });
    onTestFinished(() => client.close());
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(`${nginx.origin}${path}`)))).rejects.toThrow(/RETROFIT_ERR_SESSION_NOT_FOUND/);
  });

  it('routes the POSTs of a legacy HTTP+SSE client (?sessionId=) to the replica that holds its stream', async () => {
    const upstream = await startLegacySdkServer('sse');
    onTestFinished(() => upstream.close());
    const gateways = await Promise.all(REPLICAS.map((prefix) => startGateway(gatewayConfig([sseUpstream('legacy', upstream.url, { tools: LEGACY_TOOLS })], { sessionIdPrefix: prefix }))));
    const nginx = await startNginx(nginxConfig(gateways.map((g) => new URL(g.origin).host), true));
    for (let i = 0; i < REPLICAS.length; i++) {
      const client = new Client({ name: `legacy${i}`, version: '1.0.0' });
      onTestFinished(() => client.close());
      await client.connect(new SSEClientTransport(new URL(`${nginx.origin}/legacy/mcp`)));
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    }
    // Each replica holds one legacy stream, and answered the POSTs of its own client only (one initialize each).
    for (const g of gateways) {
      const inits = (await g.metrics.requests.get()).values.filter((v) => v.labels.method === 'initialize').reduce((n, v) => n + v.value, 0);
      expect(inits).toBe(1);
    }
  });

  it('serves a 2026-07-28 client with plain round-robin: its requests land on all three replicas', async () => {
    const gateways = await replicas();
    const nginx = await startNginx(nginxConfig(gateways.map((g) => new URL(g.url).host), false));
    const path = new URL(gateways[0]!.url).pathname;
    const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(`${nginx.origin}${path}`)));
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    for (let n = 0; n < 6; n++) {
      const result = (await client.callTool({ name: 'echo', arguments: { text: `m${n}` } })) as { content: { text: string }[] };
      expect(result.content[0]?.text).toBe(`m${n}`);
    }
    // server/discover and six calls, round-robin: every replica served some, on a pooled session of its own.
    const served = await Promise.all(gateways.map(async (g) => (await g.metrics.requests.get()).values.filter((v) => v.labels.method === 'tools/call').reduce((n, v) => n + v.value, 0)));
    expect(served.every((n) => n > 0)).toBe(true);
    expect(served.reduce((a, b) => a + b, 0)).toBe(6);
    expect(gateways.map((g) => g.routes.sessions())).toEqual([0, 0, 0]);
    expect(gateways.map((g) => g.routes.counts!().pooled)).toEqual([1, 1, 1]);
  });
});
