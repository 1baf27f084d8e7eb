/**
 * The child dies in the middle of a tool call: the client gets a JSON-RPC error at once, the session answers
 * 404 so the client re-initializes (and gets a fresh child), and after shutdown no child process remains.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { alive, connectV1, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

const connect = (url: string) => connectV1(url, 'child-killed');

describe('stdio upstream: child killed mid-call', () => {
  it('fails the pending call promptly, then 404s the session, and a new session works', async () => {
    const gateway = await startStdioGateway();
    const client = await connect(gateway.url);
    const [pid] = gateway.routes.pids();
    expect(pid).toBeDefined();
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId!;

    const call = client.callTool({ name: 'block', arguments: {} });
    const logs = gateway.logs;
    // The fixture writes "blocking" to stderr once it is inside the call.
    await gateway.waitForLog((l) => l.line === 'blocking');
    process.kill(pid!, 'SIGKILL');

    await expect(call).rejects.toMatchObject({ code: -32000, message: expect.stringMatching(/upstream "fixture" exited \(signal SIGKILL[;)]/) });
    expect(alive(pid!)).toBe(false);

    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);

    // The cause is logged (tagged with upstream and session) and counted.
    const exited = logs.find((l) => l.msg === 'upstream child exited');
    expect(exited).toMatchObject({ upstream: 'fixture', session: sessionId, reason: 'signal SIGKILL' });
    expect(await gateway.metrics.upstreamErrors.get()).toMatchObject({ values: [{ labels: { upstream: 'fixture', kind: 'exited' }, value: 1 }] });

    const again = await connect(gateway.url);
    const newPid = Number(firstText(await again.callTool({ name: 'pid', arguments: {} })));
    expect(newPid).not.toBe(pid);

    await gateway.close();
    expect(alive(newPid)).toBe(false);
    expect(gateway.routes.pids()).toEqual([]);
  });

  it('fails calls pending at shutdown instead of leaving them hanging', async () => {
    const gateway = await startStdioGateway({ stdio: { killTimeoutMs: 1000 } });
    const client = await connect(gateway.url);
    const [pid] = gateway.routes.pids();
    const call = client.callTool({ name: 'block', arguments: {} });
    await gateway.waitForLog((l) => l.line === 'blocking');
    const closing = gateway.close();
    await expect(call).rejects.toMatchObject({ code: -32000 });
    await closing;
    expect(alive(pid!)).toBe(false);
  });

  it('reports a command that cannot be spawned to the client and in ready()', async () => {
    const gateway = await startStdioGateway({ command: 'mcp-retrofit-no-such-command', args: [] });
    expect(await gateway.routes.ready()).toMatchObject({ ok: false, detail: expect.stringContaining('not found on PATH') });
    const client = new Client({ name: 'spawn-fails', version: '1.0.0' });
    await expect(client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)))).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('spawn ENOENT') });
    expect(await gateway.metrics.upstreamErrors.get()).toMatchObject({ values: [{ labels: { kind: 'spawn' }, value: 1 }] });
    expect(gateway.logs.some((l) => l.msg === 'upstream child failed to spawn')).toBe(true);
    expect(gateway.routes.sessions()).toBe(0);
  });

  it('is ready when the command resolves and cwd exists; a missing cwd is not', async () => {
    const resolves = await startStdioGateway({ command: 'node' });
    expect(await resolves.routes.ready()).toEqual({ ok: true });
    await resolves.close();
    const missing = await startStdioGateway({ cwd: 'no/such/dir' });
    expect(await missing.routes.ready()).toMatchObject({ ok: false, detail: expect.stringContaining('does not exist') });
  });
});
