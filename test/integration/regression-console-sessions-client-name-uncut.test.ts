/**
 * Regression: the console's sessions view held each session's clientInfo name and version whole — the client's
 * to write, up to `limits.maxRequestBytes` — in every listed row and as a `byClient` key: one client naming
 * itself with 300,000 characters made every /ui/api/sessions answer 600 kB, and a thousand such sessions would
 * ask for a reply past what a string can hold. They are cut at 120 characters, as the logs' `client` is.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { expect, it, onTestFinished } from 'vitest';
import { UI_DEFAULTS } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startV1Server } from '../helpers/v1-server.js';

interface SessionsBody {
  byClient: Record<string, number>;
  sessions: { client: { name: string | null; version: string | null } | null }[];
}

it('cuts a client name and version the console lists at 120 characters', async () => {
  const upstream = await startV1Server();
  const gw = await startGateway(gatewayConfig([httpUpstream('up', upstream.url)], { ui: { ...UI_DEFAULTS, enabled: true } }));
  const client = new Client({ name: `huge-${'n'.repeat(300_000)}`, version: `1.0.0-${'v'.repeat(1_000)}` });
  onTestFinished(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/up/mcp'))));
  await client.listTools();

  const text = await (await fetch(gw.url('/ui/api/sessions'))).text();
  expect(text.length).toBeLessThan(2_000);
  const body = JSON.parse(text) as SessionsBody;
  expect(body.sessions[0]?.client).toEqual({ name: `huge-${'n'.repeat(115)}…`, version: `1.0.0-${'v'.repeat(114)}…` });
  expect(body.byClient).toEqual({ [`huge-${'n'.repeat(115)}…`]: 1 });
});
