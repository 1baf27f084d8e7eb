import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { requestLines, startGateway } from '../helpers/gateway.js';
import { startV2Server } from '../helpers/v2-server.js';

describe('a v2 SDK client speaking 2026-07-28 to a v2 SDK server through the gateway', () => {
  it('succeeds with stateless requests carrying Mcp-Method/Mcp-Name, and the gateway reports the revision', async () => {
    const upstream = await startV2Server();
    const gw = await startGateway(gatewayConfig([httpUpstream('v2', upstream.url)]));
    const client = new Client({ name: 'v2-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/v2/mcp'))));
    onTestFinished(() => client.close());

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['add', 'hang']);
    const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    expect(sum.content).toEqual([{ type: 'text', text: '5' }]);

    // The upstream saw the 2026-07-28 routing headers, forwarded untouched, and its own Host.
    const call = upstream.seen.find((s) => s.headers['mcp-method'] === 'tools/call');
    expect(call?.headers).toMatchObject({ 'mcp-name': 'add', 'mcp-protocol-version': '2026-07-28', host: new URL(upstream.url).host });
    expect(upstream.seen.every((s) => s.method === 'POST')).toBe(true);

    const lines = requestLines(gw.logs);
    const logged = lines.find((l) => l.method === 'tools/call');
    expect(logged).toMatchObject({ upstream: 'v2', tool: 'add', status: 200, revision: '2026-07-28', revisionSource: 'meta' });
    expect(lines.filter((l) => l.method === 'tools/list')[0]).toMatchObject({ revision: '2026-07-28' });
    const metric = await gw.metrics.registry.getSingleMetricAsString('mcp_retrofit_protocol_revisions_total');
    expect(metric).toMatch(/mcp_retrofit_protocol_revisions_total\{upstream="v2",revision="2026-07-28",source="meta"\} [1-9]/);
  });
});
