import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { createLogger, type Logger } from '../../../src/log.js';
import { createMetrics, type Metrics } from '../../../src/metrics.js';
import { OffloadPool } from '../../../src/pipeline/offload/pool.js';
import { createRewriter, ISOLATE_DEADLINE_MS, type PendingRequest, type Rewriter, type RewriterOptions, type Rewritten } from '../../../src/pipeline/rewrite.js';
import type { UpstreamPolicy } from '../../../src/retrofit/policy.js';
import { captureLogs, type LogLine } from '../../helpers/gateway.js';
import { upstreamWith } from '../retrofit/helpers.js';

/** The rewrite entry point's worker paths: what runs where, and what a failure does. */
const PROBE = new URL('../../fixtures/offload/probe-worker.mjs', import.meta.url);
const policy = upstreamWith({ crash: { outputSchema: { type: 'object' } }, typed: { outputSchema: { type: 'object' } } });
const call = (tool: string, p: UpstreamPolicy = policy): PendingRequest => ({ upstream: 'u', method: 'tools/call', tool, revision: '2025-11-25', policy: p });
const big: JsonObject = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: JSON.stringify({ a: 'x'.repeat(1000) }) }] } };

const closing: Rewriter[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((r) => r.close()));
});

interface Setup {
  readonly rewriter: Rewriter;
  readonly metrics: Metrics;
  readonly lines: LogLine[];
  readonly log: Logger;
}

function setup(options: RewriterOptions, shared?: Pick<Setup, 'metrics' | 'lines' | 'log'>): Setup {
  const metrics = shared?.metrics ?? createMetrics({ defaultMetrics: false });
  const captured = shared ? undefined : captureLogs();
  const lines = shared?.lines ?? captured!.lines;
  const log = shared?.log ?? createLogger({ level: 'debug', destination: captured!.stream });
  const rewriter = createRewriter(metrics, { isolatePool: false, offloadBytes: 100, ...options });
  closing.push(rewriter);
  return { rewriter, metrics, lines, log };
}

/** The same rewrite on the main thread: nothing is ever big enough to leave it. */
function inline(shared?: Pick<Setup, 'metrics' | 'lines' | 'log'>): Setup {
  return setup({ pool: false, offloadBytes: Number.MAX_SAFE_INTEGER }, shared);
}

async function offloads(metrics: Metrics): Promise<Record<string, number>> {
  return Object.fromEntries((await metrics.offloads.get()).values.map((v) => [String(v.labels.result), v.value]));
}

async function retrofits(metrics: Metrics): Promise<{ labels: Record<string, unknown>; value: number }[]> {
  return (await metrics.retrofits.get()).values.map((v) => ({ labels: v.labels, value: v.value }));
}

function bytesOf(out: Rewritten): unknown {
  if (out.kind !== 'bytes') throw new Error(`expected bytes, got ${out.kind}`);
  return JSON.parse(out.bytes.toString('utf8'));
}

function messageOf(out: Rewritten | Promise<Rewritten>): JsonObject {
  if (out instanceof Promise) throw new Error('expected the main thread');
  if (out.kind !== 'message') throw new Error(`expected a message, got ${out.kind}`);
  return out.message;
}

describe('respond: large results go to the large-result worker', () => {
  it('comes back as bytes equal to the inline rewrite, logged and counted the same on both paths', async () => {
    const worker = setup({ pool: new OffloadPool() });
    const main = inline(worker);
    const job = worker.rewriter.respond(call('typed'), { message: big }, worker.log);
    expect(job).toBeInstanceOf(Promise);
    const out = await job;
    expect(bytesOf(out)).toEqual(messageOf(main.rewriter.respond(call('typed'), { message: big }, main.log)));
    expect(out.kind === 'bytes' && out.original).toBe(big);
    expect(await offloads(worker.metrics)).toEqual({ worker: 1 });
    expect(worker.lines.filter((l) => l.msg === 'retrofit').map((l) => [l.outcome, l.mode])).toEqual([
      ['extracted', 'applied'],
      ['extracted', 'applied'],
    ]);
    expect(await retrofits(worker.metrics)).toEqual([{ value: 2, labels: { upstream: 'u', tool: 'typed', outcome: 'extracted', format: 'json', mode: 'applied' } }]);
  });

  it('keeps small results, and every result when offloading is off, on the main thread', async () => {
    const small = setup({ pool: new OffloadPool({ workerUrl: PROBE }), offloadBytes: 1_000_000 });
    expect(messageOf(small.rewriter.respond(call('typed'), { message: big }, small.log)).result).toMatchObject({ structuredContent: { a: 'x'.repeat(1000) } });
    expect(await offloads(small.metrics)).toEqual({});
    const off = setup({ pool: false });
    expect(messageOf(off.rewriter.respond(call('typed'), { message: big }, off.log)).result).toMatchObject({ structuredContent: { a: 'x'.repeat(1000) } });
  });

  it('answers a worker crash as a failed reading (isError for a client shown the schema), logs at error and counts it; the next job runs', async () => {
    const pool = new OffloadPool({ workerUrl: PROBE });
    const { rewriter, metrics, lines, log } = setup({ pool });
    const out = await rewriter.respond(call('crash'), { message: big }, log);
    const result = messageOf(out).result as JsonObject;
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([...(big.result as { content: unknown[] }).content, { type: 'text', text: expect.stringMatching(/^Tool "crash" returned no output[\s\S]*the retrofit failed/) }]);
    expect(lines.find((l) => l.msg === 'retrofit engine failed; answered as a failed reading')).toMatchObject({ level: 50, tool: 'crash' });
    expect((await rewriter.respond(call('typed'), { message: big }, log)).kind).toBe('bytes');
    expect(pool.crashes).toBe(1);
    expect(await offloads(metrics)).toEqual({ failed: 1, worker: 1 });
    expect((await retrofits(metrics)).find((r) => r.labels.tool === 'crash')).toMatchObject({ value: 1, labels: { outcome: 'unparseable', mode: 'applied' } });
  });

  it('gives a client shown no schema (an old revision) the upstream result when the worker crashes', async () => {
    const { rewriter, log } = setup({ pool: new OffloadPool({ workerUrl: PROBE }) });
    const old: PendingRequest = { ...call('crash'), revision: '2025-03-26' };
    expect(await rewriter.respond(old, { message: big }, log)).toEqual({ kind: 'unchanged', original: big });
  });

  it('without its worker module, says so once at error and retrofits on the main thread', async () => {
    const { rewriter, metrics, lines, log } = setup({ pool: new OffloadPool({ workerUrl: new URL('file:///nonexistent/worker.js') }) });
    const expected = messageOf(inline().rewriter.respond(call('typed'), { message: big }, log));
    expect(messageOf(rewriter.respond(call('typed'), { message: big }, log))).toEqual(expected);
    expect(messageOf(rewriter.respond(call('typed'), { message: big }, log))).toEqual(expected);
    const errors = lines.filter((l) => l.msg === 'retrofit worker unavailable; large results run on the main thread');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ level: 50, reason: expect.stringMatching(/run `npm run build`/) });
    expect(await offloads(metrics)).toEqual({ main_thread: 2 });
  });

  it('retrofits on the main thread when the queue bound is reached', async () => {
    const { rewriter, metrics, log } = setup({ pool: new OffloadPool({ workerUrl: PROBE, maxQueuedBytes: 1500 }) });
    const first = rewriter.respond(call('typed'), { message: big }, log);
    expect(first).toBeInstanceOf(Promise);
    expect(messageOf(rewriter.respond(call('typed'), { message: big }, log)).result).toMatchObject({ structuredContent: { a: 'x'.repeat(1000) } });
    expect((await first).kind).toBe('bytes');
    expect(await offloads(metrics)).toEqual({ main_thread: 1, worker: 1 });
  });
});

describe('respond: raw input (a response the event loop has not parsed)', () => {
  const body = (id: number | string, result: JsonObject = big.result as JsonObject): string => JSON.stringify({ result, jsonrpc: '2.0', id });

  it('is parsed and rewritten on the worker: the bytes equal the inline rewrite of the parsed message', async () => {
    const { rewriter, metrics, log } = setup({ pool: new OffloadPool() });
    const main = inline();
    const expected = messageOf(main.rewriter.respond(call('typed'), { message: JSON.parse(body(1)) as JsonObject }, main.log));
    for (const raw of [body(1), Buffer.from(body(1))]) {
      const job = rewriter.respond(call('typed'), { raw, id: 1 }, log);
      expect(job).toBeInstanceOf(Promise);
      const out = await job;
      expect(bytesOf(out)).toEqual(expected);
      // The bookkeeping stub: the id, and result.task had there been one.
      expect(out.kind === 'bytes' && out.original).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    }
    expect(await offloads(metrics)).toEqual({ worker: 2 });
  });

  it('keeps the task of a raw response in its stub', async () => {
    const { rewriter, log } = setup({ pool: new OffloadPool() });
    const task = { taskId: 'T9', status: 'completed' };
    const out = await rewriter.respond(call('typed'), { raw: body(4, { ...(big.result as JsonObject), task }), id: 4 }, log);
    expect(out.kind === 'bytes' && out.original).toEqual({ jsonrpc: '2.0', id: 4, result: { task } });
  });

  it('reports a mismatch for data that is not a response with that id and a result', async () => {
    const { rewriter, metrics, log } = setup({ pool: new OffloadPool() });
    const other = (raw: string): Promise<Rewritten> => Promise.resolve(rewriter.respond(call('typed'), { raw, id: 1 }, log));
    expect(await other(body(2))).toEqual({ kind: 'mismatch', parsed: JSON.parse(body(2)) });
    expect(await other(body('1'))).toEqual({ kind: 'mismatch', parsed: JSON.parse(body('1')) });
    expect(await other(body(1).slice(0, -1))).toEqual({ kind: 'mismatch' });
    const request = { jsonrpc: '2.0', id: 1, method: 'x', params: { t: 'x'.repeat(500) } };
    expect(await other(JSON.stringify(request))).toEqual({ kind: 'mismatch', parsed: request });
    expect(await offloads(metrics)).toEqual({});
  });

  it('keeps small data, unconfigured tools and other methods on the main thread', () => {
    const small = setup({ pool: new OffloadPool({ workerUrl: PROBE }), offloadBytes: 1_000_000 });
    expect(messageOf(small.rewriter.respond(call('typed'), { raw: body(1), id: 1 }, small.log)).result).toMatchObject({ structuredContent: { a: 'x'.repeat(1000) } });
    const low = setup({ pool: new OffloadPool({ workerUrl: PROBE }) });
    const parsed = JSON.parse(body(1)) as JsonObject;
    expect(low.rewriter.respond(call('unknown'), { raw: body(1), id: 1 }, low.log)).toEqual({ kind: 'unchanged', original: parsed });
    expect(low.rewriter.respond({ ...call('typed'), method: 'tools/list' }, { raw: body(1), id: 1 }, low.log)).not.toBeInstanceOf(Promise);
  });

  it('decides a worker crash on the parsed message: a failed reading', async () => {
    const { rewriter, metrics, log } = setup({ pool: new OffloadPool({ workerUrl: PROBE }) });
    const out = await rewriter.respond(call('crash'), { raw: body(1), id: 1 }, log);
    expect(messageOf(out)).toMatchObject({ id: 1, result: { isError: true } });
    expect(await offloads(metrics)).toEqual({ failed: 1 });
  });
});

describe('respond: isolated extractions (a pattern RE2 cannot run, a YAML parse) run on the isolation worker, under a deadline', () => {
  const small: JsonObject = { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'n=12' }] } };
  const tools = (onInvalid: 'error' | 'passthrough'): UpstreamPolicy =>
    upstreamWith({
      // A lookahead: RE2 cannot run it, so the backtracking RegExp does, on the isolation worker.
      hang: { outputSchema: { type: 'object' }, extract: { format: 'regex', pattern: 'n=(?<n>\\d+)(?!\\d)' }, onInvalid },
      linear: { outputSchema: { type: 'object' }, extract: { format: 'regex', pattern: 'n=(?<n>\\d+)' } },
      // RE2 runs it, but every match of a long text can cost its square (see pattern.ts): isolated too.
      every: { outputSchema: { type: 'object' }, extract: { format: 'regex', pattern: 'n=(?<n>\\d+)', all: true } },
      yamlish: { outputSchema: { type: 'object' }, extract: { format: 'yaml' } },
      typed: { outputSchema: { type: 'object' } },
    });

  function isolating(options: { maxQueuedBytes?: number } = {}): Setup & { pool: OffloadPool } {
    const pool = new OffloadPool({ workerUrl: PROBE, warm: true, ...options });
    return { ...setup({ pool: false, isolatePool: pool }), pool };
  }

  it('marks a pattern RE2 cannot run and format yaml as isolated; an RE2 pattern and plain JSON not', () => {
    const p = tools('error');
    expect(p.resolve('hang')?.compiled?.isolate).toBeDefined();
    expect(p.resolve('yamlish')?.compiled?.isolate).toBeDefined();
    expect(p.resolve('every')?.compiled?.isolate).toBeDefined();
    expect(p.resolve('linear')?.compiled?.isolate).toBeUndefined();
    expect(p.resolve('typed')?.compiled?.isolate).toBeUndefined();
  });

  it('boots the isolation worker ahead of use only for a config with an isolated tool', () => {
    const { rewriter, pool } = isolating();
    rewriter.prepare([upstreamWith({ typed: { outputSchema: { type: 'object' } } })]);
    expect(pool.workers).toBe(0);
    rewriter.prepare([upstreamWith({ typed: { outputSchema: { type: 'object' } } }), tools('error')]);
    expect(pool.workers).toBe(1);
  });

  it('sends even a small result of an isolated tool to the isolation worker, and others not', async () => {
    const p = tools('error');
    const { rewriter, log, pool } = isolating();
    const out = await rewriter.respond(call('yamlish', p), { message: small }, log);
    // The probe worker answers with what it was sent.
    expect(bytesOf(out)).toMatchObject({ ...small, result: { tool: 'yamlish', compiled: true } });
    expect(messageOf(rewriter.respond(call('typed', p), { message: { ...small, result: { content: [{ type: 'text', text: '{"n":1}' }] } } }, log)).result).toMatchObject({ structuredContent: { n: 1 } });
    expect(pool.deadlines).toBe(0);
  });

  it('answers a stopped job with onInvalid error as an isError result naming the tool and the deadline', async () => {
    const p = tools('error');
    const { rewriter, metrics, log, pool } = isolating();
    const out = await rewriter.respond(call('hang', p), { message: small }, log);
    expect(pool.deadlines).toBe(1);
    const message = messageOf(out);
    const result = message.result as { isError?: boolean; content: { type: string; text: string }[] };
    expect(message.id).toBe(3);
    expect(result.isError).toBe(true);
    // The original content is kept; the failure comes last.
    expect(result.content[0]).toEqual({ type: 'text', text: 'n=12' });
    const failure = result.content.at(-1)!.text;
    expect(failure).toContain('Tool "hang"');
    expect(failure).toMatch(new RegExp(`ran longer than ${ISOLATE_DEADLINE_MS + 1} ms and was stopped`));
    expect(await retrofits(metrics)).toEqual([{ value: 1, labels: expect.objectContaining({ tool: 'hang', outcome: 'unparseable', mode: 'applied' }) }]);
  });

  it('never answers a client shown no schema (2025-03-26) with the isError of a stopped job, and counts it unseen', async () => {
    // Mode unseen: the client was shown no outputSchema for the tool, so a failed reading must not become isError.
    const p = tools('error');
    const { rewriter, metrics, log, pool } = isolating();
    const out = await rewriter.respond({ ...call('hang', p), revision: '2025-03-26' }, { message: small }, log);
    expect(pool.deadlines).toBe(1);
    const served = (out.kind === 'message' ? out.message : out.kind === 'unchanged' ? out.original : undefined)?.result as JsonObject | undefined;
    expect(served?.isError).toBeUndefined();
    expect(served?.content).toEqual([{ type: 'text', text: 'n=12' }]);
    expect(await retrofits(metrics)).toEqual([{ value: 1, labels: expect.objectContaining({ tool: 'hang', outcome: 'unparseable', mode: 'unseen' }) }]);
  });

  it('never runs an isolated tool inline: over the isolation queue bound it is a failed reading', async () => {
    const p = tools('error');
    const { rewriter, metrics, log } = isolating({ maxQueuedBytes: 5 });
    const first = rewriter.respond(call('hang', p), { message: small }, log);
    expect(first).toBeInstanceOf(Promise);
    const second = messageOf(await rewriter.respond(call('hang', p), { message: small }, log));
    const result = second.result as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content.at(-1)!.text).toMatch(/Tool "hang"[\s\S]*isolation worker thread, and its queue is full/);
    expect((await first).kind).toBe('message');
    expect(await retrofits(metrics)).toEqual([{ value: 2, labels: expect.objectContaining({ tool: 'hang', outcome: 'unparseable' }) }]);
  });

  it('sends a large raw answer of an isolated tool to the isolation worker: other large answers never wait behind its deadline', async () => {
    const p = tools('error');
    const large = new OffloadPool({ workerUrl: PROBE });
    const isolate = new OffloadPool({ workerUrl: PROBE, warm: true });
    const { rewriter, log } = setup({ pool: large, isolatePool: isolate });
    const raw = (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: `n=12${' '.repeat(200)}` }] } });
    const settled: string[] = [];
    const hang = Promise.resolve(rewriter.respond(call('hang', p), { raw: raw(5), id: 5 }, log)).then((out) => (settled.push('hang'), out));
    const typed = Promise.resolve(rewriter.respond(call('typed', p), { raw: raw(6), id: 6 }, log)).then((out) => (settled.push('typed'), out));
    const [stopped, done] = await Promise.all([hang, typed]);
    // The large-result worker answered the other tool while the isolated one ran to its deadline on its own worker.
    expect(settled).toEqual(['typed', 'hang']);
    expect(done.kind).toBe('bytes');
    expect([isolate.deadlines, large.deadlines]).toEqual([1, 0]);
    const result = messageOf(stopped).result as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content.at(-1)!.text).toMatch(/Tool "hang"[\s\S]*ran longer than \d+ ms and was stopped/);
  });

  it('passes the original result through for a stopped job with onInvalid passthrough (shadow), counted unparseable', async () => {
    const p = tools('passthrough');
    const { rewriter, metrics, log } = isolating();
    expect(await rewriter.respond(call('hang', p), { message: small }, log)).toEqual({ kind: 'unchanged', original: small });
    expect(await retrofits(metrics)).toEqual([{ value: 1, labels: expect.objectContaining({ tool: 'hang', outcome: 'unparseable', mode: 'shadow' }) }]);
  });
});
