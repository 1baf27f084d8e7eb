/**
 * Regression: a client that leaves while its initialize waits for a child that is slow to start (or never
 * answers) left its session and child behind until the idle timeout: the session was closed only when the
 * initialize's stream had recorded an error, and the client's leaving comes before the timeout's error. Its
 * client never saw the session's id (headers then waited for the first message), so nobody could DELETE it, and each
 * such session held a `maxSessions` place: 32 abandoned initializes filled a default `command` upstream. Now a
 * session whose client left before its initialize was answered is closed at once, its child stopped.
 */
import { describe, expect, it } from 'vitest';
import { alive, startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs } from '../helpers/raw-child.js';

// Never answers: says on stderr that it got the initialize.
const child = `
  require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
    if (JSON.parse(line).method === 'initialize') process.stderr.write('got initialize\\n');
  });`;

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gone', version: '1' } } });

describe('regression: a client that leaves during its initialize', () => {
  it('takes its session and child with it, and frees its maxSessions place', async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), upstream: { maxSessions: 1, timeoutMs: 120_000, stderr: 'info' }, stdio: { killTimeoutMs: 1_000 }, shutdownGraceMs: 0 });
    try {
      for (let round = 0; round < 2; round++) {
        const gone = new AbortController();
        const answer = fetch(gateway.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: INIT, signal: gone.signal }).catch(() => 'aborted');
        const seen = gateway.logs.filter((l) => l.line === 'got initialize').length;
        await gateway.waitForLog((l) => l.line === 'got initialize' && gateway.logs.filter((x) => x.line === 'got initialize').length > seen);
        const [pid] = gateway.routes.pids();
        expect(gateway.routes.sessions()).toBe(1);
        gone.abort();
        // Its 2025-11-25 stream's headers came at once (fetch resolved), or not yet: either way its connection goes.
        const left = await answer;
        if (left instanceof Response) await expect(left.text()).rejects.toThrow();
        // Closed at once (not at the 120 s timeout, nor the idle timeout), its child stopped: the next round's
        // initialize is not refused for maxSessions.
        await expect.poll(() => gateway.routes.sessions()).toBe(0);
        await expect.poll(() => alive(pid!)).toBe(false);
      }
    } finally {
      await gateway.close();
    }
  });
});
