/**
 * Regression: a stdio child that wrote the start of an answer (its id up front) and then more than
 * maxResultBytes with no newline left the request waiting its whole timeoutMs: the line was dropped as it
 * passed the bound, but reported (and its request failed) only when a terminator came, which this child never
 * writes. Now a line whose head names the answer's id is reported as it passes the bound, and the request gets
 * RETROFIT_ERR_RESULT_TOO_LARGE at once — in share mode too, where the id on the wire is the gateway's own.
 * The config's timeoutMs is 60 s and each test's own timeout far below it: before the fix, they time out.
 */
import { describe, expect, it } from 'vitest';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { connectV1, startStdioGateway } from '../helpers/stdio-gateway.js';

const MAX = 1024 * 1024;

/** Answers tools/call with the head of an answer and then 3 MiB (past the bound, and past OFFLOAD_BYTES), never a newline. */
const CHILD = rawChild(`(m, out) => {
  if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'huge', inputSchema: { type: 'object' } }] } });
  process.stdout.write('{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":[{"type":"text","text":"');
  process.stdout.write('z'.repeat(3 * ${MAX}));
}`);

type Failure = { code: number; data?: { code?: string }; message: string };

async function callHuge(url: string, name: string): Promise<Failure | undefined> {
  const client = await connectV1(url, name);
  return client.callTool({ name: 'huge', arguments: {} }).then(
    () => undefined,
    (err: unknown) => err as Failure,
  );
}

describe('regression: a stdio answer line over maxResultBytes that never ends', () => {
  it('fails its request with RETROFIT_ERR_RESULT_TOO_LARGE before timeoutMs', { timeout: 15_000 }, async () => {
    const gateway = await startStdioGateway({ args: rawArgs(CHILD), maxResultBytes: MAX, upstream: { timeoutMs: 60_000 } });
    const failed = await callHuge(gateway.url, 'unterminated');
    expect(failed?.data?.code).toBe('RETROFIT_ERR_RESULT_TOO_LARGE');
    expect(gateway.logs.filter((l) => l.msg === 'over-long line on upstream stdout dropped')).toHaveLength(1);
  });

  it('fails the request of the session that sent it in share mode', { timeout: 15_000 }, async () => {
    const gateway = await startStdioGateway({ args: rawArgs(CHILD), maxResultBytes: MAX, upstream: { timeoutMs: 60_000, share: true } });
    // A second session on the same child: the report must reach the session whose wire id the line carries.
    await connectV1(gateway.url, 'bystander');
    const failed = await callHuge(gateway.url, 'unterminated-shared');
    expect(failed?.data?.code).toBe('RETROFIT_ERR_RESULT_TOO_LARGE');
  });
});
