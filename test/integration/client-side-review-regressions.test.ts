/**
 * Regressions from a black-box review from the client side (2026-12-03), each through real sockets:
 * - `<path>/.well-known/` with dot segments reached any path of the upstream's host, without the gateway's
 *   token and with the upstream's configured credential attached;
 * - the 512-level nesting bound held only on routes to gateway-held sessions: a proxied `url` route passed a
 *   100,000-deep body on, and it killed the upstream;
 * - SSE answers the gateway writes itself said `connection: keep-alive` to a client that asked to close;
 * - a 413 on a path no route serves left the connection open (the rest of the body unread);
 * - a client's answer with `id: null`, or a request id past 2^53 (which no answer can match once parsed),
 *   went on to the upstream instead of a 400;
 * - 2026-07-28 clients with different API keys (any identity header but Authorization) were lent the same
 *   pooled upstream session: one user's session state served another's requests.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream, stdioUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { LEGACY_TOOLS, startLegacySdkServer } from '../helpers/legacy-sdk.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';

interface Raw {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** Whether the server closed the connection after the answer. */
  readonly closed: boolean;
}

/**
 * One request on its own keep-alive connection, the path sent exactly as given (fetch would normalise it).
 * `closed`: the server ended the connection after the answer (it answered `connection: close`); a connection
 * kept alive is closed here.
 */
function raw(origin: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Raw> {
  const { hostname, port } = new URL(origin);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise<Raw>((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, method, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      const socket = req.socket!;
      let serverClosed = false;
      socket.once('close', () => (serverClosed = true));
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const done = (): void => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8'), closed: serverClosed });
        if (res.headers.connection !== 'close' || serverClosed) return done();
        socket.once('close', done);
      });
    });
    req.on('error', reject);
    req.end(body);
  }).finally(() => agent.destroy());
}

const MCP = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('a url upstream', () => {
  async function setup() {
    const seen: { path: string; authorization: string | undefined; bytes: number }[] = [];
    const upstream = await listen(async (req, res) => {
      const body = await readBody(req);
      seen.push({ path: req.url ?? '', authorization: req.headers.authorization, bytes: body.length });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(req.method === 'POST' ? '{"jsonrpc":"2.0","id":1,"result":{}}' : '{"doc":true}');
    });
    const gw = await startGateway(
      gatewayConfig([httpUpstream('api', `${upstream.origin}/mcp`, { headers: { authorization: 'Bearer UPSTREAM-ONLY' } })], { auth: { bearerTokens: ['gateway-token-1234'] } }),
    );
    return { gw, seen };
  }

  it('passes documents under <path>/.well-known/, and refuses dot segments and empty ones (404, upstream not asked)', async () => {
    const { gw, seen } = await setup();
    const ok = await raw(gw.origin, 'GET', '/api/mcp/.well-known/oauth-protected-resource');
    expect(ok.status).toBe(200);
    expect(seen.map((s) => s.path)).toEqual(['/mcp/.well-known/oauth-protected-resource']);
    for (const path of ['/api/mcp/.well-known/../../admin', '/api/mcp/.well-known/%2e%2e/%2E%2E/admin', '/api/mcp/.well-known//evil.example/x', '/api/mcp/.well-known/a%2f..%2f..%2fadmin', '/api/mcp/.well-known/.', '/api/mcp/.well-known/..;/..;/admin', '/api/mcp/.well-known/%252e%252e/%252e%252e/admin', '/api/mcp/.well-known/;x']) {
      const res = await raw(gw.origin, 'GET', path);
      expect(res.status, path).toBe(404);
      expect(JSON.parse(res.body).error.message, path).toContain('no route for');
    }
    expect(seen).toHaveLength(1);
  });

  it('refuses a body nested deeper than 512 levels with 400 -32700 before the upstream sees it', async () => {
    const { gw, seen } = await setup();
    const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":${'['.repeat(100_000)}${']'.repeat(100_000)}}}}`;
    const res = await raw(gw.origin, 'POST', '/api/mcp', { ...MCP, authorization: 'Bearer gateway-token-1234' }, deep);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toMatchObject({ code: -32700, message: expect.stringContaining('nested deeper than 512 levels') });
    // 511 levels still pass.
    const fine = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":{"a":${'['.repeat(505)}${']'.repeat(505)}}}}`;
    expect((await raw(gw.origin, 'POST', '/api/mcp', { ...MCP, authorization: 'Bearer gateway-token-1234' }, fine)).status).toBe(200);
    expect(seen.map((s) => s.bytes)).toEqual([Buffer.byteLength(fine)]);
  });

  it('closes the connection after a 413 on a path no route serves', async () => {
    const { gw } = await setup();
    // A declared length over the limit, and a first few bytes of it: the answer comes before the rest.
    const { hostname, port } = new URL(gw.origin);
    const socket = connect(Number(port), hostname);
    socket.write(`POST /nowhere HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\ncontent-length: ${5 * 1024 * 1024}\r\n\r\n{"a":`);
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString('latin1')));
    await once(socket, 'close');
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer.toLowerCase()).toContain('connection: close');
  });
});

describe('a gateway-held session (stdio)', () => {
  const config = () => gatewayConfig([stdioUpstream('s', process.execPath, { args: [FIXTURE_SERVER], cwd: process.cwd() })]);
  const init = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } });

  it('honours a client`s Connection: close on the SSE answers it writes itself', async () => {
    const gw = await startGateway(config());
    const closing = await raw(gw.origin, 'POST', '/s/mcp', { ...MCP, connection: 'close' }, init);
    expect(closing.status).toBe(200);
    expect(closing.headers['content-type']).toBe('text/event-stream');
    expect(closing.headers.connection).toBe('close');
    expect(closing.closed).toBe(true);
    const kept = await raw(gw.origin, 'POST', '/s/mcp', MCP, init);
    expect(kept.headers.connection).toBe('keep-alive');
    expect(kept.closed).toBe(false);
  });

  it('refuses a response with id null and a request id past 2^53 with 400 -32700', async () => {
    const gw = await startGateway(config());
    const opened = await raw(gw.origin, 'POST', '/s/mcp', MCP, init);
    const session = { 'mcp-session-id': String(opened.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' };
    for (const message of [
      '{"jsonrpc":"2.0","id":null,"result":{}}',
      '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}',
      '{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":[1]}}',
    ]) {
      const res = await raw(gw.origin, 'POST', '/s/mcp', { ...MCP, ...session }, message);
      expect(res.status, message).toBe(400);
      expect(JSON.parse(res.body).error.code, message).toBe(-32700);
    }
    // A safe integer id is answered.
    const ping = await raw(gw.origin, 'POST', '/s/mcp', { ...MCP, ...session }, '{"jsonrpc":"2.0","id":9007199254740991,"method":"ping"}');
    expect(ping.status).toBe(200);
    expect(ping.body).toContain('"id":9007199254740991');
  });
});

describe('2026-07-28 clients of a url upstream that holds sessions (pooled by the gateway)', () => {
  async function call(url: string, headers: Record<string, string>): Promise<void> {
    const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
    onTestFinished(() => client.close());
    await client.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
    await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
  }

  it('keeps sessions of different API keys or cookies apart, and shares one between requests of the same', async () => {
    const server = await startLegacySdkServer('http');
    onTestFinished(() => server.close());
    const gw = await startGateway(gatewayConfig([httpUpstream('legacy', server.url, { tools: LEGACY_TOOLS, timeoutMs: 10_000 })]));
    const pooled = () => gw.app.upstreams.get('legacy')?.counts?.().pooled;
    await call(gw.url('/legacy/mcp'), { 'x-api-key': 'alice', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    await call(gw.url('/legacy/mcp'), { 'x-api-key': 'alice', traceparent: '00-1af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    expect(pooled()).toBe(1);
    await call(gw.url('/legacy/mcp'), { 'x-api-key': 'bob' });
    expect(pooled()).toBe(2);
    await call(gw.url('/legacy/mcp'), { 'x-api-key': 'alice', cookie: 'session=bob' });
    expect(pooled()).toBe(3);
  });
});
