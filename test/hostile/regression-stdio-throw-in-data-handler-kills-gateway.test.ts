/**
 * Regression: a synchronous throw while a gateway-owned session handled a message from its child escaped
 * InOrder.run — called from the child's stdout 'data' handler — and ended the process (the reported case was
 * a stack overflow on deep JSON; anything the handling throws did the same). Now nothing thrown while a link's
 * data is handled escapes: it is logged with its cause, the message is dropped, and the request it answered
 * gets a RETROFIT_ERR_INTERNAL error. Here the real session core and a real child, with a client side that
 * fails on the first answer it is handed; the answer after it, in the same chunk of stdout, is not lost.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { classifyMessage } from '../../src/jsonrpc/classify.js';
import { createMetrics } from '../../src/metrics.js';
import { createRewriter } from '../../src/pipeline/rewrite.js';
import { OwnedSession, type ClientSide, type Delivery } from '../../src/session/owned.js';
import { SessionState } from '../../src/session/state.js';
import { StdioLink } from '../../src/upstream/stdio-link.js';
import { rawChild } from '../helpers/raw-child.js';
import { captureLogger, REPO } from '../helpers/stdio-gateway.js';

// `pair` is answered twice in one write: `<id>` first, then `<id>-again` (the id of a second request).
const child = rawChild(`(m, out) => {
  const answer = (id) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'hello ' + id }] } });
  if (m.params.name === 'pair') return process.stdout.write(answer(m.id) + '\\n' + answer(m.id + '-again') + '\\n');
  if (m.params.name === 'echo') out(answer(m.id));
}`);

describe('regression: a throw while a session handles its child\'s message', () => {
  it('is caught and logged with its cause; the request it answered gets INTERNAL; the next line and the session go on', async () => {
    const logs: Record<string, unknown>[] = [];
    const log = captureLogger(logs);
    const metrics = createMetrics({ defaultMetrics: false });
    const rewriter = createRewriter(metrics, { pool: false, isolatePool: false });
    const link = new StdioLink({ upstream: 'raw', command: process.execPath, args: ['-e', child], env: { PATH: process.env.PATH ?? '' }, cwd: REPO, maxLineBytes: 1 << 20, killTimeoutMs: 1_000, log, scrub: (s) => s });
    const state = new SessionState<string>({ upstream: 'raw', bridge: true });
    const owned = new OwnedSession<string>({ upstream: 'raw', link, state, rewriter, metrics, log, timeoutMs: () => 60_000, maxResultBytes: () => 1 << 20, onclose: () => {} });
    onTestFinished(() => owned.close());

    // The client side breaks on the first answer it is handed (any bug of an edge would do the same).
    const got: { stream: string | undefined; delivery: Delivery }[] = [];
    const waiters: (() => void)[] = [];
    let broken = false;
    const client: ClientSide<string> = {
      deliver(stream, delivery) {
        if (broken && delivery.answers !== undefined && String(delivery.json).includes('"result"')) {
          broken = false;
          throw new Error('the client side broke');
        }
        got.push({ stream, delivery });
        for (const wake of waiters.splice(0)) wake();
      },
      backedUp: () => false,
      abandon: () => {},
    };
    owned.attach(client);
    const delivered = async (n: number): Promise<void> => {
      while (got.length < n) await new Promise<void>((resolve) => waiters.push(resolve));
    };
    const request = (id: string, name: string): void => {
      const c = classifyMessage({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } });
      const { sent } = owned.request(c, JSON.stringify(c.message), { header: undefined, policy: undefined, stream: id });
      expect(sent).toEqual({ ok: true });
    };

    const init = classifyMessage({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    owned.request(init, JSON.stringify(init.message), { header: undefined, policy: undefined, stream: 'init' });
    await delivered(1);
    expect(JSON.parse(String(got[0]!.delivery.json))).toMatchObject({ id: 'init', result: { serverInfo: { name: 'raw' } } });

    broken = true;
    request('p', 'pair');
    request('p-again', 'hold'); // never answered on its own: only by the second line of the pair
    await delivered(3);
    expect(got.slice(1).map((g) => [g.stream, JSON.parse(String(g.delivery.json))])).toEqual([
      ['p', { jsonrpc: '2.0', id: 'p', error: { code: -32603, message: 'internal error: the answer of upstream "raw" could not be handled', data: { code: 'RETROFIT_ERR_INTERNAL' } } }],
      ['p-again', { jsonrpc: '2.0', id: 'p-again', result: { content: [{ type: 'text', text: 'hello p-again' }] } }],
    ]);
    const line = logs.find((l) => l.msg === 'message from the upstream could not be handled; dropped');
    expect(line).toMatchObject({ level: 50, id: 'p', answered: true, err: { message: 'the client side broke' } });

    request('e', 'echo');
    await delivered(4);
    expect(JSON.parse(String(got[3]!.delivery.json))).toMatchObject({ id: 'e', result: { content: [{ text: 'hello e' }] } });
    expect(link.alive).toBe(true);
  });
});
