import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { JsonObject } from '../../../../src/json.js';
import type { ToolConfig } from '../../../../src/config/types.js';
import { DeadlineExceeded, OffloadPool, defaultWorkerUrl, type PoolAnswer, type PoolRequest } from '../../../../src/pipeline/offload/pool.js';
import type { UpstreamPolicy } from '../../../../src/retrofit/policy.js';
import { rewriteToolCall } from '../../../../src/retrofit/engine.js';
import { upstreamWith } from '../../retrofit/helpers.js';
import { compileUpstreamPolicy } from '../../../../src/policy/compile.js';
import { decisionKey } from '../../../../src/retrofit/native-memory.js';
import { PROBE, pool } from './pools.js';


function requestFor(policy: UpstreamPolicy, tool: string, result: JsonObject, revision = '2025-06-18'): PoolRequest {
  const entry = policy.resolve(tool);
  if (!entry) throw new Error(`no policy for ${tool}`);
  return { entry, policy, tool, revision, result, bytes: JSON.stringify(result).length };
}

/** Run on the worker and synchronously, and check both give the same result and outcome. */
async function same(p: OffloadPool, policy: UpstreamPolicy, tool: string, result: JsonObject, revision: string): Promise<PoolAnswer> {
  const sync = rewriteToolCall(result, tool, policy, revision);
  const answer = await p.run(requestFor(policy, tool, result, revision))!;
  expect(answer.outcome).toEqual(sync.outcome);
  if (answer.bytes === undefined) expect(sync.result).toBe(result);
  else expect(JSON.parse(answer.bytes.toString('utf8'))).toEqual(sync.result);
  return answer;
}

interface Case {
  readonly tool: string;
  readonly revision: string;
  readonly config: ToolConfig;
  readonly input: JsonObject;
}

const CORPUS = join(import.meta.dirname, '../../../fixtures/corpus');
const cases = readdirSync(CORPUS)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((file) => ({ file, ...(parse(readFileSync(join(CORPUS, file), 'utf8')) as Case) }));

describe('the offload worker module', () => {
  it('is built (npm run build) where the pool looks for it', () => {
    const p = pool();
    // A missing dist/offload/worker.js must fail here, loudly, not fall back to the main thread unnoticed.
    expect(p.unavailable, 'run `npm run build` before the tests').toBeUndefined();
    expect(defaultWorkerUrl('file:///x/src/pipeline/offload/pool.ts').href).toBe('file:///x/dist/pipeline/offload/worker.js');
    expect(defaultWorkerUrl('file:///x/dist/pipeline/offload/pool.js').href).toBe('file:///x/dist/pipeline/offload/worker.js');
  });

  it('names a missing worker module in its reason', () => {
    const p = pool({ workerUrl: new URL('file:///nonexistent/worker.js') });
    expect(p.unavailable).toMatch(/nonexistent\/worker\.js does not exist \(run `npm run build`\)/);
  });
});

describe('results retrofitted on the worker equal the synchronous engine', () => {
  // One worker for the whole differential: it also proves tools of many policies share a worker's cache.
  let shared: OffloadPool;
  beforeAll(() => {
    shared = new OffloadPool();
  });
  afterAll(() => shared.close());

  it.each(cases)('corpus $file', async (c) => {
    await same(shared, upstreamWith({ [c.tool]: c.config }), c.tool, c.input, c.revision);
  });

  const rows = Array.from({ length: 25_000 }, (_, i) => ({ id: i, name: `user ${i} "quoted" é`, active: i % 3 === 0, score: i / 7 }));
  const schema = { type: 'object', properties: { rows: { type: 'array', items: { type: 'object', required: ['id', 'name'] } } }, required: ['rows'] };
  const json = JSON.stringify({ rows });
  const big: [string, string, ToolConfig][] = [
    ['whole JSON', json, { outputSchema: schema }],
    ['fenced in prose', `Here you go:\n\`\`\`json\n${json}\n\`\`\`\nBye.`, { outputSchema: schema }],
    ['embedded in prose', `The rows are ${json} as requested.`, { outputSchema: schema }],
    ['an array wrapped for object-only clients', JSON.stringify(rows), { outputSchema: { type: 'array' } }],
    ['invalid against the schema (a tool error)', json, { outputSchema: { type: 'object', required: ['missing'] } }],
    ['invalid, passed through', json, { outputSchema: { type: 'object', required: ['missing'] }, onInvalid: 'passthrough' }],
  ];
  it.each(big)('a %s text of about 2 MB', async (_name, text, config) => {
    expect(text.length).toBeGreaterThan(1_500_000);
    const policy = upstreamWith({ big: config });
    for (const revision of ['2025-06-18', '2026-07-28']) await same(shared, policy, 'big', { content: [{ type: 'text', text }] }, revision);
  });
});

describe('the pool', () => {
  it('answers jobs in the order they were queued', async () => {
    const p = pool();
    const policy = upstreamWith({ t: { outputSchema: { type: 'object' } } });
    const order: string[] = [];
    const bigText = JSON.stringify({ a: 'x'.repeat(3_000_000) });
    const jobs = [
      p.run(requestFor(policy, 't', { content: [{ type: 'text', text: bigText }] }))!.then(() => order.push('big')),
      p.run(requestFor(policy, 't', { content: [{ type: 'text', text: '{"b":1}' }] }))!.then(() => order.push('small 1')),
      p.run(requestFor(policy, 't', { content: [{ type: 'text', text: '{"c":2}' }] }))!.then(() => order.push('small 2')),
    ];
    await Promise.all(jobs);
    expect(order).toEqual(['big', 'small 1', 'small 2']);
  });

  it('sends a tool config to a worker once, and compiles each policy object under its own id', async () => {
    const p = pool({ workerUrl: PROBE });
    const policy = upstreamWith({ t: { outputSchema: { type: 'object' } }, u: { outputSchema: { type: 'object' } } });
    const seen = async (tool: string): Promise<{ toolId: number; compiled: boolean }> => JSON.parse((await p.run(requestFor(policy, tool, { content: [] }))!).bytes!.toString()) as { toolId: number; compiled: boolean };
    const first = await seen('t');
    expect(first.compiled).toBe(true);
    expect(await seen('t')).toMatchObject({ toolId: first.toolId, compiled: false });
    const other = await seen('u');
    expect(other).toMatchObject({ compiled: true });
    expect(other.toolId).not.toBe(first.toolId);
    // A new config generation compiles new policy objects: new ids.
    const next = upstreamWith({ t: { outputSchema: { type: 'object' } } });
    expect(p.idOf(next.resolve('t')!)).not.toBe(first.toolId);
    expect(p.idOf(policy.resolve('t')!)).toBe(first.toolId);
  });

  it('stops a job past its deadline (terminating its worker) and runs the next one on a fresh worker', async () => {
    const p = pool({ workerUrl: PROBE, warm: true });
    p.warm();
    const policy = upstreamWith({ t: { outputSchema: { type: 'object' } }, hang: { outputSchema: { type: 'object' } } });
    const hung = p.run({ ...requestFor(policy, 'hang', { content: [] }), deadlineMs: 50 })!;
    const next = p.run(requestFor(policy, 't', { content: [] }))!;
    await expect(hung).rejects.toBeInstanceOf(DeadlineExceeded);
    await expect(hung).rejects.toThrow(/ran longer than 50 ms and was stopped/);
    expect(JSON.parse((await next).bytes!.toString())).toMatchObject({ tool: 't', compiled: true });
    expect(p.deadlines).toBe(1);
    expect(p.crashes).toBe(0);
    expect(p.queuedBytes).toBe(0);
  });

  it('fails the job of a worker that crashes, replaces the worker, and the new one gets configs again', async () => {
    const p = pool({ workerUrl: PROBE });
    const policy = upstreamWith({ t: { outputSchema: { type: 'object' } }, crash: { outputSchema: { type: 'object' } } });
    const before = JSON.parse((await p.run(requestFor(policy, 't', { content: [] }))!).bytes!.toString()) as { threadId: number };
    const crashed = p.run(requestFor(policy, 'crash', { content: [] }))!;
    const queued = p.run(requestFor(policy, 't', { content: [] }))!;
    await expect(crashed).rejects.toThrow(/exited with code 3/);
    const after = JSON.parse((await queued).bytes!.toString()) as { threadId: number; compiled: boolean };
    expect(after.threadId).not.toBe(before.threadId);
    expect(after.compiled).toBe(true);
    expect(p.crashes).toBe(1);
    expect(p.queuedBytes).toBe(0);
  });

  it('rejects a job whose engine threw, and keeps its worker', async () => {
    const p = pool({ workerUrl: PROBE });
    const policy = upstreamWith({ throw: { outputSchema: { type: 'object' } }, t: { outputSchema: { type: 'object' } } });
    await expect(p.run(requestFor(policy, 'throw', { content: [] }))!).rejects.toThrow('engine threw');
    await expect(p.run(requestFor(policy, 't', { content: [] }))!).resolves.toMatchObject({ outcome: { outcome: 'extracted' } });
    expect(p.crashes).toBe(0);
  });

  it('refuses a job past the bound on queued bytes, but always takes one', async () => {
    const p = pool({ workerUrl: PROBE, maxQueuedBytes: 100 });
    const policy = upstreamWith({ t: { outputSchema: { type: 'object' } } });
    const request = { ...requestFor(policy, 't', { content: [] }), bytes: 80 };
    const first = p.run({ ...request, bytes: 1_000 });
    expect(first).toBeInstanceOf(Promise);
    expect(p.run(request)).toBeUndefined();
    await first;
    expect(p.queuedBytes).toBe(0);
    await expect(p.run(request)!).resolves.toMatchObject({ outcome: { outcome: 'extracted' } });
  });

  it('reshapes a 2026-07-28 answer on the built worker as sessionAnswer does, bytes or text, into shared memory; a deep one is named', async () => {
    const p = pool();
    const text = JSON.stringify({ jsonrpc: '2.0', id: 'x~retry-1', result: { resultType: 'complete', ttlMs: 1, content: [{ type: 'text', text: 'ü'.repeat(1000) }] } });
    const bytes = Buffer.from(text);
    for (const data of [text, bytes]) {
      const out = await p.reshape(data, 'x')!;
      expect(out.kind).toBe('answer');
      // In shared memory: passed on to the session (and a worker again) without a copy.
      expect(out.kind === 'answer' && out.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
      const json = out.kind === 'answer' ? out.bytes.toString('utf8') : '';
      expect(JSON.parse(json)).toEqual({ jsonrpc: '2.0', id: 'x', result: { content: [{ type: 'text', text: 'ü'.repeat(1000) }] } });
    }
    expect(await p.reshape(Buffer.from('{"jsonrpc":"2.0","method":"notifications/message"}'), 1)!).toEqual({ kind: 'pass' });
    expect(await p.reshape(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":${'['.repeat(5_000)}${']'.repeat(5_000)}}`), 1)!).toEqual({ kind: 'deep' });
    expect(p.queuedBytes).toBe(0);
  });

  it('inspects a large message nothing rewrites, and sorts out a shared child\'s line, on the built worker', async () => {
    const p = pool();
    const text = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'ü'.repeat(100_000) } });
    const shared = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(text)));
    shared.write(text);
    for (const data of [shared, text]) {
      expect(await p.inspect(data)!).toEqual({ kind: 'messages', batch: false, messages: [{ stub: { jsonrpc: '2.0', method: 'notifications/message', params: {} } }] });
    }
    expect(await p.inspect(Buffer.from('{"jsonrpc":'))!).toEqual({ kind: 'invalid' });
    // A shared child's line, sorted out: the restored bytes come back as a Buffer over shared memory.
    const demuxed = await p.demux(Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: '1~5', progress: 1 } })))!;
    const restored = demuxed.kind === 'messages' ? demuxed.messages[0]!.restored : undefined;
    expect(Buffer.isBuffer(restored) && restored.buffer instanceof SharedArrayBuffer).toBe(true);
    expect(JSON.parse(restored!.toString('utf8'))).toEqual({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 5, progress: 1 } });
    expect(p.queuedBytes).toBe(0);
  });

  it("projects a tool's own structuredContent on the built worker as the engine does on the main thread", async () => {
    const p = pool();
    const defaults = { onInvalid: 'error', legacyRoots: 'wrap', coerce: true } as const;
    const main = compileUpstreamPolicy({ name: 'u', tools: {} }, defaults).policy;
    // tools/list (2025-06-18) declared a non-object root: an object-only era gets it wrapped.
    main.native!.decisions.set(decisionKey('t', 'object-only'), 'non-object');
    const cases: [JsonObject, string][] = [
      [{ content: [{ type: 'text', text: 'ü'.repeat(1000) }], structuredContent: { a: 'ü'.repeat(1000) } }, '2025-03-26'],
      [{ content: [{ type: 'text', text: '[1]' }], structuredContent: [1, 2] }, '2025-06-18'],
      [{ content: [{ type: 'text', text: '{}' }], structuredContent: { a: 1 } }, '2025-11-25'],
      [{ content: [], structuredContent: { a: 1 }, isError: true }, '2024-11-05'],
    ];
    for (const [result, revision] of cases) {
      const sync = rewriteToolCall(result, 't', main, revision).result;
      const data = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 9, result }));
      const answer = await p.native({ data, id: 9, tool: 't', revision, decisions: [['object-only', 'non-object']], defaults })!;
      expect(answer.stub).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
      if (sync === result) expect(answer.bytes).toBeUndefined();
      else expect(JSON.parse(answer.bytes!.toString('utf8'))).toEqual({ jsonrpc: '2.0', id: 9, result: sync });
    }
    // Not the response it was taken for: nothing done, the caller parses it.
    expect(await p.native({ data: Buffer.from('{"jsonrpc":"2.0","id":8,"result":{}}'), id: 9, tool: 't', revision: '2025-03-26', decisions: [], defaults })!).toEqual({ mismatch: true });
    expect(p.queuedBytes).toBe(0);
  });

  it('rejects queued and running jobs on close, and every later one', async () => {
    const p = pool({ workerUrl: PROBE });
    const policy = upstreamWith({ t: { outputSchema: { type: 'object' } } });
    const running = expect(p.run(requestFor(policy, 't', { content: [] }))!).rejects.toThrow('closed');
    const queued = expect(p.run(requestFor(policy, 't', { content: [] }))!).rejects.toThrow('closed');
    await p.close();
    await running;
    await queued;
    await expect(p.run(requestFor(policy, 't', { content: [] }))!).rejects.toThrow('closed');
    expect(p.unavailable).toBe('the offload pool is closed');
  });
});
