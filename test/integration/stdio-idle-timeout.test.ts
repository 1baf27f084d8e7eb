/**
 * A session with no HTTP activity for the idle timeout is closed and its child stopped; a session with a
 * call still in flight is not idle, however long the call takes.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { alive, connectV1, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

afterEach(() => {
  vi.useRealTimers();
});

const connect = (url: string) => connectV1(url, 'idle');

describe('stdio upstream: idle timeout', () => {
  it('closes an idle session and stops its child', async () => {
    const idleTimeoutMs = 60_000;
    const gateway = await startStdioGateway({ stdio: { idleTimeoutMs } });
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
    const gateway = await startStdioGateway({ stdio: { idleTimeoutMs } });
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
