import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { OffloadPool } from '../../../src/offload/pool.js';
import { createRewriter, type PendingRequest, type Rewriter } from '../../../src/pipeline/rewrite.js';
import { captureLogs } from '../../helpers/gateway.js';
import { upstreamWith } from '../retrofit/helpers.js';

/** The rewrite hook's large-result path: what runs where, and what a failure does. */
const PROBE = new URL('../../fixtures/offload/probe-worker.mjs', import.meta.url);
const policy = upstreamWith({ crash: { outputSchema: { type: 'object' } }, typed: { outputSchema: { type: 'object' } } });
const policies = new Map([['u', policy]]);
const call = (tool: string): PendingRequest => ({ upstream: 'u', method: 'tools/call', tool, revision: '2025-11-25' });
const big: JsonObject = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: JSON.stringify({ a: 'x'.repeat(1000) }) }] } };

const closing: Rewriter[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((r) => r.close?.()));
});

function setup(pool: OffloadPool | false, offloadBytes = 100): { rewriter: Rewriter; metrics: ReturnType<typeof createMetrics>; lines: Record<string, unknown>[]; log: ReturnType<typeof createLogger> } {
  const metrics = createMetrics({ defaultMetrics: false });
  const { lines, stream } = captureLogs();
  const log = createLogger({ level: 'debug', destination: stream });
  const rewriter = createRewriter(policies, metrics, { pool, offloadBytes });
  closing.push(rewriter);
  return { rewriter, metrics, lines, log };
}

async function offloads(metrics: ReturnType<typeof createMetrics>): Promise<Record<string, number>> {
  return Object.fromEntries((await metrics.offloads.get()).values.map((v) => [String(v.labels.result), v.value]));
}

describe('Rewriter.rewriteLarge', () => {
  it('sends large results to the worker and counts their outcome like the synchronous path', async () => {
    const { rewriter, metrics, lines, log } = setup(new OffloadPool());
    const out = await rewriter.rewriteLarge!(call('typed'), big, log)!;
    const sync = rewriter.rewrite(call('typed'), big, log);
    expect(JSON.parse(out.serialized!.toString('utf8'))).toEqual(sync);
    expect(await offloads(metrics)).toEqual({ worker: 1 });
    // Both paths logged and counted one extraction.
    expect(lines.filter((l) => l.msg === 'retrofit').map((l) => l.outcome)).toEqual(['extracted', 'extracted']);
    expect((await metrics.retrofits.get()).values).toEqual([expect.objectContaining({ value: 2, labels: expect.objectContaining({ outcome: 'extracted', format: 'json' }) })]);
  });

  it('keeps small results, and every result when offloading is off, on the synchronous path', () => {
    const { rewriter, log } = setup(new OffloadPool(), 1_000_000);
    expect(rewriter.rewriteLarge!(call('typed'), big, log)).toBeUndefined();
    const off = setup(false);
    expect(off.rewriter.rewriteLarge!(call('typed'), big, off.log)).toBeUndefined();
  });

  it('passes the original result through when the worker crashes, logs and counts it, and the next job runs', async () => {
    const pool = new OffloadPool({ workerUrl: PROBE });
    const { rewriter, metrics, lines, log } = setup(pool);
    const out = await rewriter.rewriteLarge!(call('crash'), big, log)!;
    expect(out).toEqual({ message: big });
    expect(lines.find((l) => l.msg === 'retrofit engine failed; result passed through')).toMatchObject({ level: 50, tool: 'crash' });
    const next = await rewriter.rewriteLarge!(call('typed'), big, log)!;
    expect(next.serialized).toBeInstanceOf(Buffer);
    expect(pool.crashes).toBe(1);
    expect(await offloads(metrics)).toEqual({ failed: 1, worker: 1 });
  });

  it('without its worker module, says so once at error and retrofits on the main thread', () => {
    const { rewriter, metrics, lines, log } = setup(new OffloadPool({ workerUrl: new URL('file:///nonexistent/worker.js') }));
    expect(rewriter.rewriteLarge!(call('typed'), big, log)).toBeUndefined();
    expect(rewriter.rewriteLarge!(call('typed'), big, log)).toBeUndefined();
    const errors = lines.filter((l) => l.msg === 'retrofit worker unavailable; large results are retrofitted on the main thread');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.reason).toMatch(/run `npm run build`/);
    return offloads(metrics).then((counts) => expect(counts).toEqual({ main_thread: 2 }));
  });

  it('retrofits on the main thread when the queue bound is reached', async () => {
    const { rewriter, metrics, log } = setup(new OffloadPool({ workerUrl: PROBE, maxQueuedBytes: 1500 }));
    const first = rewriter.rewriteLarge!(call('typed'), big, log);
    expect(first).toBeInstanceOf(Promise);
    expect(rewriter.rewriteLarge!(call('typed'), big, log)).toBeUndefined();
    await first;
    expect(await offloads(metrics)).toEqual({ main_thread: 1, worker: 1 });
  });
});

describe('Rewriter.rewriteRaw (a response the event loop has not parsed)', () => {
  const body = (id: number | string, result: JsonObject = big.result as JsonObject): string => JSON.stringify({ result, jsonrpc: '2.0', id });

  it('is parsed and rewritten on the worker: the bytes equal the synchronous rewrite of the parsed message', async () => {
    const { rewriter, metrics, log } = setup(new OffloadPool());
    for (const data of [body(1), Buffer.from(body(1))]) {
      const out = await rewriter.rewriteRaw!(call('typed'), data, 1, log)!;
      if (out.mismatch) throw new Error('unexpected mismatch');
      expect(JSON.parse(out.serialized!.toString('utf8'))).toEqual(rewriter.rewrite(call('typed'), JSON.parse(body(1)) as JsonObject, log));
      expect(out.stub).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    }
    expect(await offloads(metrics)).toEqual({ worker: 2 });
  });

  it('reports a mismatch for data that is not a response with that id and a result', async () => {
    const { rewriter, metrics, log } = setup(new OffloadPool());
    const other = (data: string): unknown => rewriter.rewriteRaw!(call('typed'), data, 1, log);
    await expect(other(body(2))).resolves.toEqual({ mismatch: true });
    await expect(other(body('1'))).resolves.toEqual({ mismatch: true });
    await expect(other(`${body(1)}`.slice(0, -1))).resolves.toEqual({ mismatch: true });
    await expect(other(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'x', params: { t: 'x'.repeat(500) } }))).resolves.toEqual({ mismatch: true });
    expect(await offloads(metrics)).toEqual({});
  });

  it('keeps small data, unconfigured tools and other methods for the main thread', () => {
    const { rewriter, log } = setup(new OffloadPool(), 1_000_000);
    expect(rewriter.rewriteRaw!(call('typed'), body(1), 1, log)).toBeUndefined();
    const low = setup(new OffloadPool());
    expect(low.rewriter.rewriteRaw!(call('unknown'), body(1), 1, low.log)).toBeUndefined();
    expect(low.rewriter.rewriteRaw!({ ...call('typed'), method: 'tools/list' }, body(1), 1, low.log)).toBeUndefined();
  });

  it('passes the original bytes through when the worker crashes (an empty stub settles the bookkeeping)', async () => {
    const { rewriter, metrics, log } = setup(new OffloadPool({ workerUrl: PROBE }));
    await expect(rewriter.rewriteRaw!(call('crash'), body(1), 1, log)!).resolves.toEqual({ stub: { jsonrpc: '2.0', id: 1, result: {} } });
    expect(await offloads(metrics)).toEqual({ failed: 1 });
  });
});
