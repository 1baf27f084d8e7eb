/**
 * Regression: writes to a stdio child's stdin ignored backpressure — a flood of client requests to a child
 * that does not read its stdin queued in the gateway without bound. Now what waits for the child is bounded
 * (limits.maxResultBytes per child): past it a send is refused at once, and that client gets
 * RETROFIT_ERR_UPSTREAM_BUSY for its request (nothing of it is kept pending); the requests taken before the
 * bound are answered as usual (here: at timeoutMs, since the child never reads them). Share mode alike.
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { RAW_INIT_RESULT, rawArgs } from '../helpers/raw-child.js';
import { echoCall, openSession, post, sessionHeaders } from './harness.js';

const BOUND = 128 * 1024;
const REQUESTS = 40;
const TEXT = 'x'.repeat(32 * 1024);
// Answers initialize, then never reads its stdin again: everything after stays in the pipe and the gateway.
const child = `
  let buffer = '';
  const onData = (chunk) => {
    buffer += chunk;
    const nl = buffer.indexOf('\\n');
    if (nl < 0) return;
    const m = JSON.parse(buffer.slice(0, nl));
    process.stdin.off('data', onData);
    process.stdin.pause();
    process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: ${JSON.stringify(RAW_INIT_RESULT)} }) + '\\n');
  };
  process.stdin.on('data', onData);
  setInterval(() => {}, 1 << 30); // alive, though nothing is read`;

describe.each([
  ['an owned session', false],
  ['share mode', true],
])('regression: a flood of requests to a stdio child that does not read, %s', (_label, share) => {
  it('is refused past the bound with UPSTREAM_BUSY at once; what was taken is answered at timeoutMs', async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), maxResultBytes: BOUND, upstream: { share, timeoutMs: 5_000 }, stdio: { killTimeoutMs: 1_000 } });
    const url = gateway.url;
    const h = sessionHeaders(await openSession(url));
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, async (_, i) => {
        const answer = await post(url, echoCall(i, TEXT), h);
        return { error: answer.messages.find((m) => m.id === i)?.error as { code: number; data?: { code?: string } } | undefined, ms: Date.now() - started };
      }),
    );
    const busy = answers.filter((a) => a.error?.data?.code === 'RETROFIT_ERR_UPSTREAM_BUSY');
    const timedOut = answers.filter((a) => a.error?.data?.code === 'RETROFIT_ERR_UPSTREAM_TIMEOUT');
    expect(busy.length + timedOut.length).toBe(REQUESTS);
    // The child's stdin socket takes a few hundred KiB; past that, the gateway holds at most the bound.
    expect(busy.length).toBeGreaterThanOrEqual(REQUESTS / 2);
    const full = gateway.logs.filter((l) => l.msg === 'upstream child is not reading its stdin; messages for it are refused until it does');
    expect(full).toHaveLength(1);
    expect(full[0]!.queued).toBeLessThanOrEqual(BOUND);
    // Refused at once, not at the deadline.
    expect(Math.max(...busy.map((a) => a.ms))).toBeLessThan(5_000);
    expect(busy[0]!.error).toMatchObject({ code: -32000, message: expect.stringMatching(/^upstream "fixture" is busy: it has not read the \d+ bytes already written to it$/) });
    const counted = (await gateway.metrics.upstreamErrors.get()).values.find((v) => v.labels.kind === 'busy');
    expect(counted?.value).toBe(busy.length);
    expect(gateway.app.server.listening).toBe(true);
  });
});
