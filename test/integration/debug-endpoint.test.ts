/**
 * GET /debug/retrofit (src/http/server/debug.ts): absent unless MCP_RETROFIT_DEBUG=1; then, to loopback
 * peers only, the counts the fault suite reads — here a stdio session's, its child included, while it is
 * open and once DELETE ended it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gatewayConfig, stdioUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { openSession } from '../hostile/harness.js';

const config = () => gatewayConfig([stdioUpstream('local', process.execPath, { args: [FIXTURE_SERVER], cwd: process.cwd() })]);
const before = process.env.MCP_RETROFIT_DEBUG;

afterEach(() => {
  if (before === undefined) delete process.env.MCP_RETROFIT_DEBUG;
  else process.env.MCP_RETROFIT_DEBUG = before;
});

describe('the debug endpoint', () => {
  it('is not there unless MCP_RETROFIT_DEBUG=1', async () => {
    delete process.env.MCP_RETROFIT_DEBUG;
    const gw = await startGateway(config());
    const res = await fetch(gw.url('/debug/retrofit'));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { data: { code: 'RETROFIT_ERR_NOT_FOUND' } } });
  });

  it('counts a session and its child while it is open, nothing once it ended', async () => {
    process.env.MCP_RETROFIT_DEBUG = '1';
    const gw = await startGateway(config());
    const counts = async () => ((await (await fetch(gw.url('/debug/retrofit'))).json()) as { upstreams: Record<string, Record<string, number>>; inflight: number; timers: number });
    expect((await counts()).upstreams.local).toEqual({ sessions: 0, pending: 0, streams: 0, closing: 0, children: 0, pooled: 0, pooledBusy: 0, poolStarting: 0, poolWaiting: 0, listeners: 0, heldForRetry: 0 });

    const session = await openSession(gw.url('/local/mcp'));
    const open = await counts();
    expect(open.upstreams.local).toMatchObject({ sessions: 1, pending: 0, children: 1 });
    // The session's idle timer at least, and the registry's keep-alive ticker.
    expect(open.timers).toBeGreaterThanOrEqual(2);

    expect((await fetch(gw.url('/local/mcp'), { method: 'DELETE', headers: { 'mcp-session-id': session } })).status).toBe(200);
    // The child is stopped behind the DELETE's answer: `closing` until it has exited.
    await vi.waitFor(async () => expect((await counts()).upstreams.local?.closing).toBe(0));
    expect((await counts()).upstreams.local).toEqual({ sessions: 0, pending: 0, streams: 0, closing: 0, children: 0, pooled: 0, pooledBusy: 0, poolStarting: 0, poolWaiting: 0, listeners: 0, heldForRetry: 0 });
  });

  it('answers loopback peers only', async () => {
    process.env.MCP_RETROFIT_DEBUG = '1';
    const gw = await startGateway(config());
    expect((await gw.app.inject({ method: 'GET', url: '/debug/retrofit', remoteAddress: '127.0.0.1' })).statusCode).toBe(200);
    const remote = await gw.app.inject({ method: 'GET', url: '/debug/retrofit', remoteAddress: '10.1.2.3' });
    expect(remote.statusCode).toBe(404);
  });
});
