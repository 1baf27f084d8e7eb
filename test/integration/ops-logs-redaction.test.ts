/**
 * Logs of a real session through `serve`: one `request` line per exchange for HTTP, stdio and legacy SSE upstreams
 * (upstream, method, tool, status, duration, outcome), and no configured secret in any line — the gateway's
 * bearer token, an upstream header, stdio `env` values (from `${VAR}` and literal), even when the child
 * prints them on stderr, which the gateway logs.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { startEverythingSse } from '../helpers/everything-sse.js';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { startServe } from '../helpers/serve.js';
import { startV1Server } from '../helpers/v1-server.js';

const SECRETS = {
  GATEWAY_TOKEN: 'gw-token-5f1c9e2a',
  UP_TOKEN: 'up-token-77ad01b3',
  API_KEY: 'api-key-c0ffee42',
};
const LITERAL_ENV = 'literal-env-9e8d7c6b';

// The child tells the world its credentials on stderr (some servers do), then runs the fixture server.
const CHILD = "process.stderr.write('starting with ' + process.env.API_KEY + ' / ' + process.env.PLAIN_KEY + '\\n'); import(process.argv[1]);";

describe('request lines and redaction', () => {
  it('logs one line per exchange for HTTP, stdio and legacy SSE, and never a secret', async () => {
    for (const [k, v] of Object.entries(SECRETS)) vi.stubEnv(k, v);
    vi.stubEnv('LOG_LEVEL', 'debug');
    onTestFinished(() => void vi.unstubAllEnvs());
    const upstream = await startV1Server();
    const everything = await startEverythingSse();
    onTestFinished(() => everything.close());
    const gw = await startServe(`
auth:
  bearerTokens: ["\${GATEWAY_TOKEN}"]
upstreams:
  web:
    url: ${upstream.url}
    headers: { X-Api-Token: "\${UP_TOKEN}" }
    tools:
      echo: { outputSchema: { type: object } }
  local:
    command: ${process.execPath}
    args: ${JSON.stringify(['-e', CHILD, FIXTURE_SERVER])}
    env: { API_KEY: "\${API_KEY}", PLAIN_KEY: ${LITERAL_ENV} }
    tools:
      echo: { outputSchema: { type: object } }
  legacy:
    sse: ${everything.url}
`);
    for (const name of ['web', 'local']) {
      const url = new URL(`${gw.origin}/${name}/mcp`);
      const client = new Client({ name: 'log-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${SECRETS.GATEWAY_TOKEN}` } } }));
      onTestFinished(() => client.close());
      const result = await client.callTool({ name: 'echo', arguments: { text: '{"ok": true}' } });
      expect(result.structuredContent).toEqual({ ok: true });
      const denied = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${SECRETS.GATEWAY_TOKEN}-not`, 'content-type': 'application/json' }, body: '{}' });
      expect(denied.status).toBe(401);
    }

    // Legacy HTTP+SSE: the POST is accepted (202) and its answer comes on the stream.
    const legacyClient = new Client({ name: 'log-test', version: '1.0.0' });
    const auth = { authorization: `Bearer ${SECRETS.GATEWAY_TOKEN}` };
    await legacyClient.connect(new SSEClientTransport(new URL(`${gw.origin}/legacy/mcp`), { requestInit: { headers: auth }, eventSourceInit: { fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers as Record<string, string>), ...auth } }) } }));
    onTestFinished(() => legacyClient.close());
    expect(await legacyClient.callTool({ name: 'echo', arguments: { message: 'hi' } })).toMatchObject({ content: [{ type: 'text' }] });
    expect(gw.logs.find((l) => l.msg === 'request' && l.upstream === 'legacy' && l.method === 'tools/call')).toMatchObject({ tool: 'echo', status: 202, outcome: 'ok' });

    // The child's stderr line was logged, with both of its secrets scrubbed.
    const stderr = gw.logs.find((l) => l.msg === 'upstream stderr' && String(l.line).startsWith('starting with'));
    expect(stderr?.line).toBe('starting with [Redacted] / [Redacted]');
    expect(gw.logs.some((l) => l.level === 20)).toBe(true);

    const leaks = gw.raw.filter((line) => [...Object.values(SECRETS), LITERAL_ENV].some((s) => line.includes(s)));
    expect(leaks).toEqual([]);

    for (const upstreamName of ['web', 'local']) {
      const calls = gw.logs.filter((l) => l.msg === 'request' && l.upstream === upstreamName && l.method === 'tools/call');
      expect(calls, upstreamName).toHaveLength(1);
      expect(calls[0]).toMatchObject({ tool: 'echo', status: 200 });
      expect(calls[0]?.durationMs).toEqual(expect.any(Number));
      expect(gw.logs.some((l) => l.msg === 'request' && l.upstream === upstreamName && l.method === 'initialize'), upstreamName).toBe(true);
    }
    expect(gw.logs.find((l) => l.msg === 'request' && l.upstream === 'local' && l.method === 'tools/call')).toMatchObject({ outcome: 'ok' });
    expect(gw.logs.filter((l) => l.msg === 'request' && l.code === 'RETROFIT_ERR_UNAUTHORIZED' && l.status === 401)).toHaveLength(2);
  });
});
