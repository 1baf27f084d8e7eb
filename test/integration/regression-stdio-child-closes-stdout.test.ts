/**
 * Regression: a child that closed its stdout but kept running left its session open with a child that can
 * never answer: each request waited its whole timeoutMs for RETROFIT_ERR_UPSTREAM_TIMEOUT, until the session
 * went idle (15 minutes). Now a child still running a second after its stdout ended is stopped, and the
 * session ends as if it had exited: what it held gets RETROFIT_ERR_UPSTREAM_EXITED at once ("closed its
 * stdout"), and the client's next session gets a new child.
 */
import { describe, expect, it } from 'vitest';
import { alive, connectV1, startStdioGateway } from '../helpers/stdio-gateway.js';

/** A stdio server that answers initialize, then closes its stdout on tools/call and keeps running. */
const CHILD = String.raw`
const { closeSync } = require('node:fs');
process.stdout.write('');
let buffered = '';
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let nl;
  while ((nl = buffered.indexOf('\n')) !== -1) {
    const message = JSON.parse(buffered.slice(0, nl));
    buffered = buffered.slice(nl + 1);
    if (message.method === 'initialize') {
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { protocolVersion: message.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'closer', version: '1' } } }) + '\n');
    } else if (message.method === 'tools/list') {
      process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { tools: [{ name: 'close', inputSchema: { type: 'object' } }] } }) + '\n');
    } else if (message.method === 'tools/call') {
      process.stderr.write('closing stdout ' + process.pid + '\n');
      closeSync(1);
    }
  }
});
setInterval(() => {}, 1000);
`;

describe('regression: a stdio child that closes its stdout and keeps running', () => {
  it('is stopped, and its request gets RETROFIT_ERR_UPSTREAM_EXITED long before timeoutMs', async () => {
    const gateway = await startStdioGateway({ command: process.execPath, args: ['-e', CHILD], upstream: { timeoutMs: 60_000 } });
    const client = await connectV1(gateway.url, 'closer');
    const failed = await client.callTool({ name: 'close', arguments: {} }).then(
      () => undefined,
      (err: unknown) => err as { code: number; data?: { code?: string }; message: string },
    );
    expect(failed?.data?.code).toBe('RETROFIT_ERR_UPSTREAM_EXITED');
    expect(failed?.message).toContain('closed its stdout');
    // (Before, the call waited the whole 60 s timeoutMs: past the test's own timeout.)
    const line = await gateway.waitForLog((l) => typeof l.line === 'string' && l.line.startsWith('closing stdout'));
    const pid = Number(String(line.line).split(' ')[2]);
    await expect.poll(() => alive(pid)).toBe(false);
    await gateway.waitForLog((l) => l.msg === 'upstream child closed its stdout but kept running; stopped');
  });
});
