/**
 * Regression: a gateway-owned session paused its child when a client stream backed up, and resumed it on that
 * stream's 'drain' — an order of events. 'drain' could come before the session heard of the pressure (the
 * front corks, writes, uncorks), so the resume came first and the pause was never lifted: a child that wrote a
 * ~200 KB notification just before an answer made the next call time out about one run in three, and in share
 * mode every session of that child stalled. Now the session asks the client side whether it is backed up *now*
 * after each delivery and on each drain, so no interleaving leaves the link paused while nothing is backed up.
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { echoCall, openSession, post, sessionHeaders } from '../hostile/harness.js';

const ROUNDS = 40;
// Every call: a ~200 KB notification (routed to the call's stream: the only request in flight), then the answer.
const child = rawChild(`(m, out) => {
  out({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(200 * 1024) } });
  out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'done' }] } });
}`);

/** Calls one after another; each must get its answer (a stalled link would answer -32001 at timeoutMs). */
async function rounds(url: string, session: string, tag: string): Promise<void> {
  for (let i = 0; i < ROUNDS; i++) {
    const id = `${tag}-${i}`;
    const answer = await post(url, echoCall(id, 'x'), sessionHeaders(session));
    expect(answer.messages.find((m) => m.id === id)).toEqual({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'done' }] } });
    expect(answer.messages.find((m) => m.method === 'notifications/message')).toBeDefined();
  }
}

describe('regression: a large notification just before an answer', () => {
  it(`never leaves the child paused: ${ROUNDS} calls in a row are all answered`, async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), upstream: { timeoutMs: 3_000 }, stdio: { killTimeoutMs: 1_000 } });
    await rounds(gateway.url, await openSession(gateway.url), 'one');
    expect(gateway.logs.filter((l) => l.msg === 'upstream did not answer within timeoutMs; request cancelled')).toEqual([]);
  });

  it('share mode: two sessions of one child, neither stalls the other', async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), upstream: { timeoutMs: 3_000, share: true }, stdio: { killTimeoutMs: 1_000 } });
    const [a, b] = [await openSession(gateway.url), await openSession(gateway.url)];
    await Promise.all([rounds(gateway.url, a, 'a'), rounds(gateway.url, b, 'b')]);
    expect(gateway.routes.pids()).toHaveLength(1);
    expect(gateway.logs.filter((l) => l.msg === 'upstream did not answer within timeoutMs; request cancelled')).toEqual([]);
  });
});
