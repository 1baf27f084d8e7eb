/**
 * stdio session controls, from the upstream's config: `maxSessions` caps the children of an upstream (a new
 * session beyond it gets 503 with RETROFIT_ERR_TOO_MANY_SESSIONS, and no child), `idleTimeoutMs` closes a
 * session nobody talks to (the child stops). And errors carry their cause: a child that exits during
 * initialize is answered with its exit and the last lines it wrote on stderr (secrets scrubbed), and the
 * request's log line says what the client got.
 */
import { describe, expect, it, vi } from 'vitest';
import { alive, connectV1, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('stdio session controls', () => {
  it('maxSessions: the session beyond the cap gets 503 and spawns nothing; a closed session frees its place', async () => {
    const gateway = await startStdioGateway({ upstream: { maxSessions: 2 } });
    const open = async (): Promise<Response> => {
      const res = await fetch(gateway.url, { method: 'POST', headers: HEADERS, body: INIT });
      await res.text();
      return res;
    };
    const a = (await open()).headers.get('mcp-session-id')!;
    await connectV1(gateway.url, 'b');
    expect(gateway.routes.pids()).toHaveLength(2);
    const third = await fetch(gateway.url, { method: 'POST', headers: HEADERS, body: INIT });
    expect(third.status).toBe(503);
    expect(await third.json()).toMatchObject({ error: { code: -32000, message: 'upstream "fixture" already has 2 sessions (maxSessions)', data: { code: 'RETROFIT_ERR_TOO_MANY_SESSIONS' } } });
    expect(gateway.routes.pids()).toHaveLength(2);
    // DELETE ends a session: its place is free again.
    expect((await fetch(gateway.url, { method: 'DELETE', headers: { 'mcp-session-id': a } })).status).toBe(200);
    const c = await connectV1(gateway.url, 'c');
    expect(firstText(await c.callTool({ name: 'echo', arguments: { text: 'in' } }))).toBe('in');
  });

  it('idleTimeoutMs: a session nobody talks to is closed and its child stopped', async () => {
    const idleTimeoutMs = 30_000;
    const gateway = await startStdioGateway({ upstream: { idleTimeoutMs } });
    const client = await connectV1(gateway.url, 'idle');
    const pid = Number(firstText(await client.callTool({ name: 'pid', arguments: {} })));
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await client.listTools();
      vi.advanceTimersByTime(idleTimeoutMs - 1);
      expect(gateway.routes.sessions()).toBe(1);
      vi.advanceTimersByTime(1);
      expect(gateway.routes.sessions()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    await gateway.waitForLog((l) => l.msg === 'upstream child stopped');
    expect(alive(pid)).toBe(false);
  });

  it('a child that exits during initialize: the error quotes its stderr (scrubbed), the log line says what the client got', async () => {
    const script = "process.stderr.write('REDIS_URL is not set (token s3cr3t-value)\\n'); process.exit(1);";
    const gateway = await startStdioGateway({ args: ['-e', script], config: { secrets: ['s3cr3t-value'] } });
    const res = await fetch(gateway.url, { method: 'POST', headers: HEADERS, body: INIT });
    const body = (await res.text()).split('\n').find((l) => l.startsWith('{') || l.startsWith('data: {'))!.replace(/^data: /, '');
    const error = (JSON.parse(body) as { error: { code: number; message: string; data: { code: string } } }).error;
    expect(error).toMatchObject({ code: -32000, data: { code: 'RETROFIT_ERR_UPSTREAM_EXITED' } });
    expect(error.message).toBe('upstream "fixture" exited (code 1; stderr: REDIS_URL is not set (token [Redacted]))');
    const line = await gateway.waitForLog((l) => l.msg === 'request' && l.method === 'initialize');
    expect(line).toMatchObject({ outcome: 'error', rpcError: -32000, code: 'RETROFIT_ERR_UPSTREAM_EXITED' });
    expect(JSON.stringify(gateway.logs)).not.toContain('s3cr3t-value');
  });
});
