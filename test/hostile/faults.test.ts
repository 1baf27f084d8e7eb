/**
 * Faults: an HTTP upstream restarting under open sessions, stdio children that exit at start or flood
 * stderr. The client always gets an answer (a result or a JSON-RPC error), the gateway keeps serving, and
 * no child process is left behind.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startEchoUpstream, WHOAMI_TOOLS } from './echo-upstream.js';
import { childPids, echoCall, echoed, openSession, post, sessionHeaders, stdioUpstream } from './harness.js';

const whoami = (id: number, tag: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'whoami', arguments: { tag } } });
const H = { 'mcp-protocol-version': '2025-06-18' };

describe('faults', () => {
  it('an HTTP upstream restarting under open sessions: 502 while down, 404 after (the client re-initializes), then normal', async () => {
    const first = await startEchoUpstream();
    const port = (first.server.address() as AddressInfo).port;
    const gw = await startGateway(gatewayConfig([httpUpstream('echo', first.url, { tools: WHOAMI_TOOLS })]));
    const url = gw.url('/echo/mcp');
    const sessions = await Promise.all([0, 1, 2].map(() => openSession(url)));
    for (const s of sessions) expect((await post(url, whoami(1, 'before'), { ...sessionHeaders(s) })).status).toBe(200);

    // Down: every open session gets a clean 502 naming the upstream.
    first.server.closeAllConnections();
    await new Promise<void>((resolve) => first.server.close(() => resolve()));
    for (const s of sessions) {
      const down = await post(url, whoami(2, 'down'), sessionHeaders(s));
      expect(down.status).toBe(502);
      expect(down.messages[0]).toMatchObject({ id: 2, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_UNREACHABLE' } } });
    }

    // Back on the same port (the one it had bound), with no memory of the sessions.
    const second: Server = createServer((req, res) => first.server.emit('request', req, res));
    await new Promise<void>((resolve) => second.listen(port, '127.0.0.1', resolve));
    onTestFinished(() => new Promise<void>((resolve) => (second.closeAllConnections(), second.close(() => resolve()))));
    first.sessions.clear();
    for (const s of sessions) expect((await post(url, whoami(3, 'after'), sessionHeaders(s))).status).toBe(404);
    const fresh = await openSession(url);
    const answer = await post(url, whoami(4, 'again'), { ...sessionHeaders(fresh), ...H });
    expect((answer.messages[0]?.result as { structuredContent?: unknown }).structuredContent).toEqual({ session: fresh, tag: 'again' });
  });

  it('a stdio child that exits at start fails the initialize cleanly, every time, and leaves no child', async () => {
    const before = childPids().length;
    const gw = await startGateway(gatewayConfig([stdioUpstream('dies', { args: ['-e', 'process.stderr.write("bye\\n"); process.exit(3)'] })]));
    const url = gw.url('/dies/mcp');
    for (const id of [1, 2, 3]) {
      const init = await post(url, { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
      expect(init.status).toBe(200);
      const error = init.messages.find((m) => m.id === id)?.error as { code?: number; message?: string } | undefined;
      // Either the child died before answering (EXITED), or the pipe broke first; both are JSON-RPC errors.
      expect(error?.code).toBe(-32000);
      expect(error?.message).toMatch(/upstream "dies" exited \((code 3|not running)[;)]/);
    }
    expect(childPids().length).toBe(before);
    // The gateway itself is fine.
    expect((await fetch(gw.url('/healthz'))).status).toBe(200);
  });

  it('a stdio child writing malformed JSON-RPC and answers to unknown ids: skipped, the real answer arrives', async () => {
    // A raw NDJSON server: before each real answer, a broken line, a non-JSON-RPC object and an unknown id.
    const server = `
      const rl = require('node:readline').createInterface({ input: process.stdin });
      const out = (v) => process.stdout.write((typeof v === 'string' ? v : JSON.stringify(v)) + '\\n');
      rl.on('line', (line) => {
        const m = JSON.parse(line);
        if (m.id === undefined) return;
        out('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":[{"ty');
        out({ hello: 'not json-rpc' });
        out({ jsonrpc: '2.0', id: 'nobody-asked', result: { content: [{ type: 'text', text: 'stray' }] } });
        out({ jsonrpc: '2.0', id: m.id, result: m.method === 'initialize'
          ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '1' } }
          : { content: [{ type: 'text', text: 'real answer' }] } });
      });`;
    const gw = await startGateway(gatewayConfig([stdioUpstream('raw', { args: ['-e', server] })]));
    const url = gw.url('/raw/mcp');
    const session = await openSession(url);
    for (const id of [1, 2]) {
      const answer = await post(url, echoCall(id, 'x'), sessionHeaders(session));
      expect(answer.messages.filter((m) => m.id !== undefined)).toEqual([{ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'real answer' }] } }]);
    }
    expect(gw.logs.some((l) => l.msg === 'upstream sent something that is not JSON; skipped')).toBe(true);
    expect(gw.logs.some((l) => l.msg === 'upstream sent something that is not a JSON-RPC message; skipped')).toBe(true);
  });

  it('a stdio child flooding stderr still answers, and the flood does not take the gateway down', async () => {
    // 20,000 lines (about 2 MB) on stderr before serving, and a 1 MB line without a newline break.
    const flood = `for (let i = 0; i < 20000; i++) process.stderr.write('noise ' + i + ' ' + 'x'.repeat(90) + '\\n'); process.stderr.write('y'.repeat(1 << 20) + '\\n');`;
    const gw = await startGateway(gatewayConfig([stdioUpstream('noisy', { args: ['--import', `data:text/javascript,${encodeURIComponent(flood)}`, (await import('../helpers/stdio-gateway.js')).FIXTURE_SERVER] })]));
    const url = gw.url('/noisy/mcp');
    const session = await openSession(url);
    const answer = await post(url, echoCall('e', 'through the noise'), sessionHeaders(session));
    expect(echoed(answer.messages.find((m) => m.id === 'e'))).toBe('through the noise');
    const stderrLines = gw.logs.filter((l) => l.stream === 'stderr');
    expect(stderrLines.length).toBeGreaterThan(0);
    // The over-long line is logged truncated, never whole.
    expect(Math.max(...stderrLines.map((l) => String(l.line).length))).toBeLessThanOrEqual(64 * 1024);
  });
});
