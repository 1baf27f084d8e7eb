/**
 * Load and isolation: 1,000 sessions open at once through the gateway against one upstream, each doing
 * tools/list and two tagged tools/call (JSON answers and SSE answers). Every answer must name the session
 * that asked and carry its tag (a response leaking across sessions shows up as a wrong session id), nothing
 * may fail, and once every session is deleted and the clients gone, the gateway holds no client connection
 * and the upstream no session. Bounded by a pool of concurrent workers so it stays well under 30 s here.
 *
 * Memory: heap after a forced gc would need --expose-gc, which the test runner does not pass; the
 * retained state that could grow (pending requests, session facts) is bounded by LRU size and TTL
 * (src/session/lru.ts, unit-tested), so it is not measured here.
 */
import type { Socket } from 'node:net';
import { Pool } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startEchoUpstream, WHOAMI_TOOLS } from './echo-upstream.js';
import { ACCEPT_BOTH, messagesOf } from './harness.js';

// `npm run soak` raises these (HOSTILE_SESSIONS, HOSTILE_ROUNDS); npm test runs one round of 1,000.
const SESSIONS = Number(process.env.HOSTILE_SESSIONS ?? 1_000);
const ROUNDS = Number(process.env.HOSTILE_ROUNDS ?? 1);
const WORKERS = 64;

let client: Pool | undefined;
afterEach(async () => {
  await client?.destroy();
  client = undefined;
});

/** Run `task` for 0..n-1 with at most `width` at a time. */
async function pooled(n: number, width: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await task(next++);
    }),
  );
}

// The SSE variant runs a quarter of the sessions: same code paths, half the suite's time budget.
describe.each([
  ['JSON', false, SESSIONS],
  ['SSE', true, Math.ceil(SESSIONS / 4)],
])('concurrent sessions, %s answers', (_label, sse, count) => {
  it(`${count} sessions at once: every answer reaches the session that asked; connections and upstream sessions return to zero`, async () => {
    const upstream = await startEchoUpstream({ sse });
    const gw = await startGateway(gatewayConfig([httpUpstream('echo', upstream.url, { tools: WHOAMI_TOOLS })]));
    const live = new Set<Socket>();
    gw.app.server.on('connection', (socket: Socket) => {
      live.add(socket);
      socket.once('close', () => live.delete(socket));
    });
    const pool = new Pool(gw.origin, { connections: WORKERS });
    client = pool;

    const rpc = async (body: object, session?: string): Promise<{ status: number; session?: string; messages: Record<string, unknown>[] }> => {
      const res = await pool.request({
        method: 'POST',
        path: '/echo/mcp',
        headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...(session !== undefined && { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }) },
        body: JSON.stringify(body),
      });
      const text = await res.body.text();
      const sid = res.headers['mcp-session-id'];
      return { status: res.statusCode, ...(typeof sid === 'string' && { session: sid }), messages: messagesOf(text, String(res.headers['content-type'] ?? '')) };
    };

    // With a gc exposed (the soak run), the heap after the last round must be near the heap after the first.
    const gc = (globalThis as { gc?: () => void }).gc;
    const heaps: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await oneRound(round);
      if (gc) {
        gc();
        heaps.push(process.memoryUsage().heapUsed);
      }
    }
    if (heaps.length > 1) {
      process.stdout.write(`soak: heap after each round (MB): ${heaps.map((h) => (h / 2 ** 20).toFixed(1)).join(', ')}\n`);
      expect(heaps.at(-1)!).toBeLessThan(heaps[0]! * 1.5);
    }

    async function oneRound(round: number): Promise<void> {
      // Open every session first, so all of them exist at once.
      const sessions: string[] = [];
      await pooled(count, WORKERS, async (i) => {
        const init = await rpc({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: `c${i}`, version: '1' } } });
        expect(init.status).toBe(200);
        sessions[i] = init.session!;
      });
      expect(upstream.sessions.size).toBe(count);
      expect(new Set(sessions).size).toBe(count);

      const failures: string[] = [];
      await pooled(count, WORKERS, async (i) => {
        const session = sessions[i]!;
        const list = await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, session);
        const tools = (list.messages[0]?.result as { tools?: { name: string; outputSchema?: unknown }[] } | undefined)?.tools;
        if (list.status !== 200 || tools?.[0]?.outputSchema === undefined) failures.push(`list ${i}: ${list.status}`);
        for (const n of [2, 3]) {
          const tag = `t${i}-${n}`;
          const call = await rpc({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'whoami', arguments: { tag } } }, session);
          const answer = call.messages.find((m) => m.id === n);
          const structured = (answer?.result as { structuredContent?: unknown } | undefined)?.structuredContent;
          if (call.status !== 200 || JSON.stringify(structured) !== JSON.stringify({ session, tag })) failures.push(`call ${tag}: ${call.status} ${JSON.stringify(answer)}`);
        }
      });
      expect(failures).toEqual([]);
      expect(upstream.calls).toBe(2 * count * (round + 1));

      await pooled(count, WORKERS, async (i) => {
        const res = await pool.request({ method: 'DELETE', path: '/echo/mcp', headers: { 'mcp-session-id': sessions[i]! } });
        await res.body.dump();
        expect(res.statusCode).toBe(200);
      });
      expect(upstream.sessions.size).toBe(0);
      // The gateway answers 404 for what the upstream forgot, and still serves new sessions.
      expect((await rpc({ jsonrpc: '2.0', id: 9, method: 'tools/list' }, sessions[0])).status).toBe(404);
    }

    await pool.close();
    client = undefined;
    // Every client connection the gateway accepted is closed once the clients are gone.
    await new Promise<void>((resolve) => {
      const check = (): void => void (live.size === 0 && resolve());
      for (const socket of live) socket.once('close', check);
      check();
    });
    expect(live.size).toBe(0);
    expect(gw.logs.filter((l) => (l.level ?? 0) >= 50)).toEqual([]);
  }, 600_000);
});
