/**
 * A session with no HTTP activity for the idle timeout is closed and its child stopped; a session with a
 * call still in flight is not idle, however long the call takes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { alive, firstText, startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';

let gateway: StdioGateway | undefined;
let client: Client | undefined;

afterEach(async () => {
  vi.useRealTimers();
  await client?.close();
  await gateway?.close();
  client = undefined;
  gateway = undefined;
});

async function connect(url: string): Promise<Client> {
  client = new Client({ name: 'idle', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('stdio upstream: idle timeout', () => {
  it('closes an idle session and stops its child', async () => {
    const idleTimeoutMs = 60_000;
    gateway = await startStdioGateway({ stdio: { idleTimeoutMs } });
    const c = await connect(gateway.url);
    const pid = Number(firstText(await c.callTool({ name: 'pid', arguments: {} })));
    // Arm the idle timer under fake time: the next HTTP exchange re-arms it.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    await c.listTools();
    vi.advanceTimersByTime(idleTimeoutMs - 1);
    expect(gateway.routes.sessions()).toBe(1);
    vi.advanceTimersByTime(1);
    expect(gateway.routes.sessions()).toBe(0);
    vi.useRealTimers();
    await gateway.waitForLog((l) => l.msg === 'upstream child stopped' && l.reason === 'signal SIGTERM');
    expect(alive(pid)).toBe(false);
  });

  it('does not close a session while a call is in flight', async () => {
    const idleTimeoutMs = 60_000;
    gateway = await startStdioGateway({ stdio: { idleTimeoutMs } });
    const c = await connect(gateway.url);
    const [pid] = gateway.routes.pids();
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const blocked = c.callTool({ name: 'block', arguments: {} }, undefined, { timeout: 10 * idleTimeoutMs });
    const failed = expect(blocked).rejects.toMatchObject({ code: -32000 });
    await gateway.waitForLog((l) => l.line === 'blocking');
    vi.advanceTimersByTime(3 * idleTimeoutMs);
    expect(gateway.routes.sessions()).toBe(1);
    expect(alive(pid!)).toBe(true);
    vi.useRealTimers();
    process.kill(pid!, 'SIGKILL');
    await failed;
  });
});
