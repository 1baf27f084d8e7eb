/**
 * The console in front of a proxied Streamable HTTP upstream (`url:`, a v1 SDK server): its sessions are the
 * ones the gateway has seen (the active-sessions gauge's), listed with the client and both revisions once
 * initialize was answered and gone after DELETE; a shadowed tool's outcomes count as shadow, equal to /metrics.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, it, onTestFinished } from 'vitest';
import { UI_DEFAULTS } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startV1Server } from '../helpers/v1-server.js';

interface SessionsBody {
  total: number;
  byClient: Record<string, number>;
  sessions: { upstream: string; client: { name: string | null; version: string | null } | null; revision: string | null; upstreamRevision: string | null; bridged: boolean }[];
}

it('lists proxied sessions while open and counts a shadowed tool as shadow', async () => {
  const upstream = await startV1Server();
  const tools = { echo: { outputSchema: { type: 'object' }, shadow: true } };
  const gw = await startGateway(gatewayConfig([httpUpstream('up', upstream.url, { tools })], { ui: { ...UI_DEFAULTS, enabled: true } }));
  const sessions = async (): Promise<SessionsBody> => (await (await fetch(gw.url('/ui/api/sessions'))).json()) as SessionsBody;

  const client = new Client({ name: 'proxied-client', version: '0.9' });
  onTestFinished(() => client.close());
  const transport = new StreamableHTTPClientTransport(new URL(gw.url('/up/mcp')));
  await client.connect(transport);
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: '{"a":1}' } });

  const open = await sessions();
  expect(open.total).toBe(1);
  expect(open.sessions[0]).toMatchObject({ upstream: 'up', client: { name: 'proxied-client', version: '0.9' }, revision: expect.any(String), upstreamRevision: expect.any(String), bridged: false });

  const toolsBody = (await (await fetch(gw.url('/ui/api/upstreams/up/tools'))).json()) as { tools: { name: string; mode: string; totals: Record<string, number> }[] };
  const echo = toolsBody.tools.find((t) => t.name === 'echo');
  expect(echo).toMatchObject({ mode: 'shadow', totals: { shadow: 1, extracted: 0 } });
  const metrics = await gw.metrics.retrofits.get();
  expect(metrics.values.filter((v) => v.labels.tool === 'echo' && v.labels.mode === 'shadow').reduce((n, v) => n + v.value, 0)).toBe(1);

  await transport.terminateSession();
  await client.close();
  expect((await sessions()).total).toBe(0);
});
