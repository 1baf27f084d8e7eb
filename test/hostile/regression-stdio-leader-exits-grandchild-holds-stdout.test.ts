/**
 * Regression: a stdio child (a wrapper: `npx`, a shell script) that exits while a process it started keeps its
 * stdout open was not noticed: the gateway learnt of an exit only once every copy of stdout had closed. Node
 * closes its end of the child's stdin when the leader exits, so nothing could be asked any more, yet the call in
 * flight waited its whole timeoutMs, every later request got "(not running)" and the session lived on (no 404:
 * its client never re-initialized) with its maxSessions place and the grandchild, until the idle timeout. Now
 * what the group still writes is read for a grace, then the group is stopped and the session ends: the call
 * gets UPSTREAM_EXITED within seconds, the next request 404, and the grandchild is gone.
 */
import { describe, expect, it } from 'vitest';
import { running } from '../helpers/processes.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { echoCall, openSession, post, sessionHeaders } from './harness.js';

// On any tools/call: starts a grandchild on the same stdout (it says its pid, ignores SIGTERM, never exits), then exits.
const child = rawChild(`(m, out) => {
  const grandchild = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);";
  const g = require('node:child_process').spawn(process.execPath, ['-e', grandchild], { stdio: ['ignore', 'inherit', 'inherit'] });
  g.on('spawn', () => { process.stderr.write('grandchild ' + g.pid + '\\\\n'); process.exit(0); });
}`);

describe('regression: a stdio child whose leader exits while a grandchild holds its stdout', () => {
  it('fails the call in flight at once, ends the session and stops the grandchild', async () => {
    // timeoutMs far beyond the test: an answer that only came at the deadline would fail it.
    const gateway = await startStdioGateway({ args: rawArgs(child), upstream: { timeoutMs: 120_000 }, stdio: { killTimeoutMs: 500 }, shutdownGraceMs: 0 });
    try {
      const h = sessionHeaders(await openSession(gateway.url));
      const answer = await post(gateway.url, echoCall(1, 'bye'), h);
      const failed = answer.messages.find((m) => m.id === 1) as { error: { message: string } };
      expect(failed).toMatchObject({ error: { data: { code: 'RETROFIT_ERR_UPSTREAM_EXITED' } } });
      // The error quotes the child's last stderr lines: the grandchild's pid.
      const pid = Number(/grandchild (\d+)/.exec(failed.error.message)?.[1]);
      expect(pid).toBeGreaterThan(0);
      await expect.poll(() => running(pid)).toBe(false);
      await expect.poll(() => gateway.routes.sessions()).toBe(0);
      expect((await post(gateway.url, echoCall(2, 'again'), h)).status).toBe(404);
    } finally {
      await gateway.close();
    }
  });
});
