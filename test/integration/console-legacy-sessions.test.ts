/**
 * A legacy HTTP+SSE client (the v1 SDK's SSEClientTransport) in front of an `sse:` upstream (server-everything
 * over HTTP+SSE): the console lists its connection as a session while its stream is open, with its client name
 * and revision, and forgets it when the client goes.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { expect, it, onTestFinished, vi } from 'vitest';
import { UI_DEFAULTS } from '../../src/config/types.js';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startEverythingSse } from '../helpers/everything-sse.js';
import { startGateway } from '../helpers/gateway.js';

it('lists a legacy SSE connection as a session until it closes', async () => {
  const everything = await startEverythingSse();
  onTestFinished(() => everything.close());
  const gw = await startGateway(gatewayConfig([sseUpstream('legacy', everything.url)], { ui: { ...UI_DEFAULTS, enabled: true } }));
  const sessions = async (): Promise<{ total: number; sessions: { client: { name: string | null } | null; revision: string | null }[] }> =>
    (await (await fetch(gw.url('/ui/api/sessions'))).json()) as { total: number; sessions: { client: { name: string | null } | null; revision: string | null }[] };

  const legacy = new Client({ name: 'legacy-client', version: '0.1' });
  onTestFinished(() => legacy.close());
  await legacy.connect(new SSEClientTransport(new URL(gw.url('/legacy/mcp'))));
  await legacy.callTool({ name: 'echo', arguments: { message: 'hi' } });
  const open = await sessions();
  expect(open.total).toBe(1);
  expect(open.sessions[0]).toMatchObject({ client: { name: 'legacy-client' }, revision: expect.any(String) });

  await legacy.close();
  await vi.waitFor(async () => expect((await sessions()).total).toBe(0));
});
