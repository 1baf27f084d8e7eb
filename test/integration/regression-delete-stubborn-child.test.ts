/**
 * Regression: a DELETE of a gateway-held session whose child ignores SIGTERM was answered only once the child
 * was gone — after its whole kill grace (5 s by default; a minute here, so the old behaviour times the test
 * out). The session now ends for its client at once; the child is stopped behind the answer and keeps its
 * place under maxSessions until it is gone, so a new session waits for that place (never a second child
 * beyond the cap) and gets it as soon as the old child exits.
 */
import { describe, expect, it } from 'vitest';
import { alive, FIXTURE_SERVER, startStdioGateway } from '../helpers/stdio-gateway.js';

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
// The fixture server, deaf to SIGTERM and kept alive by a timer once its stdin ends.
const STUBBORN = ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1 << 30); import(process.argv[1]);", FIXTURE_SERVER];

describe('regression: DELETE of a session whose child ignores SIGTERM', () => {
  it('is answered at once; the dying child holds its place until it is gone, then a new session gets it', async () => {
    const gateway = await startStdioGateway({ command: process.execPath, args: STUBBORN, upstream: { maxSessions: 1 }, stdio: { killTimeoutMs: 60_000 } });
    const open = (): Promise<Response> => fetch(gateway.url, { method: 'POST', headers: HEADERS, body: INIT });
    const first = await open();
    await first.text();
    const session = first.headers.get('mcp-session-id')!;
    const [pid] = gateway.routes.pids();
    expect(pid).toBeDefined();

    const deleted = await fetch(gateway.url, { method: 'DELETE', headers: { 'mcp-session-id': session } });
    expect(deleted.status).toBe(200);
    // Answered while the child still runs out its grace: the client did not wait for it.
    expect(alive(pid!)).toBe(true);
    expect(gateway.routes.counts!()).toMatchObject({ sessions: 0, closing: 1 });
    // The session is gone for its client.
    const reused = await fetch(gateway.url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }) });
    expect(reused.status).toBe(404);
    await reused.text();

    // A new session at the cap waits for the closing one's place: no second child while the first lives.
    const second = open();
    await gateway.waitForLog((line) => line.msg === 'a new session waits for the place of a session still closing');
    expect(gateway.routes.counts!()).toMatchObject({ sessions: 0, closing: 1, children: 0 });
    process.kill(pid!, 'SIGKILL');
    const answer = await second;
    expect(answer.status).toBe(200);
    await answer.text();
    expect(alive(pid!)).toBe(false);
    const pids = gateway.routes.pids();
    expect(pids).toHaveLength(1);
    expect(pids[0]).not.toBe(pid);
    // The new child is as deaf: killed here, so closing the gateway does not wait out its grace.
    process.kill(pids[0]!, 'SIGKILL');
  });
});
