/**
 * The rewriter tells the console's observer of every outcome it counts, on each path (inline, worker with the
 * parsed result, worker with raw bytes: no result), and of every tools/list it reads; with no observer, none.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { OffloadPool } from '../../../src/pipeline/offload/pool.js';
import type { OutcomeEvent, PipelineObserver } from '../../../src/pipeline/report.js';
import { createRewriter, type PendingRequest, type Rewriter, type RewriterOptions } from '../../../src/pipeline/rewrite.js';
import { upstreamWith } from '../retrofit/helpers.js';

const log = createLogger({ level: 'silent' });
const policy = upstreamWith({ typed: { outputSchema: { type: 'object', properties: { a: { type: 'number' } } } } });
const answer = (text: string, id: number | string = 1): JsonObject => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const call: PendingRequest = { upstream: 'u', method: 'tools/call', tool: 'typed', revision: '2025-11-25', policy };

const closing: Rewriter[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((r) => r.close()));
});

function setup(options: RewriterOptions): { rewriter: Rewriter; outcomes: OutcomeEvent[]; lists: JsonObject[] } {
  const outcomes: OutcomeEvent[] = [];
  const lists: JsonObject[] = [];
  const observer: PipelineObserver = { outcome: (e) => void outcomes.push(e), listed: (_r, result) => void lists.push(result) };
  const rewriter = createRewriter(createMetrics({ defaultMetrics: false }), { isolatePool: false, ...options, observer });
  closing.push(rewriter);
  return { rewriter, outcomes, lists };
}

describe('the pipeline observer', () => {
  it('gets an inline outcome with the result, what the client got, and the time taken', () => {
    const { rewriter, outcomes, lists } = setup({ pool: false });
    rewriter.respond(call, { message: answer('{"a":1}') }, log);
    rewriter.respond(call, { message: answer('{"a":"x"}') }, log);
    rewriter.respond({ upstream: 'u', method: 'tools/list', revision: '2025-11-25', policy }, { message: { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'typed', inputSchema: { type: 'object' } }] } } }, log);
    expect(outcomes.map((o) => o.outcome.outcome)).toEqual(['extracted', 'invalid']);
    expect(outcomes[0]).toMatchObject({ tool: 'typed', mode: 'applied', result: { content: [{ text: '{"a":1}' }] }, delivered: { structuredContent: { a: 1 } } });
    expect(outcomes[0]!.ms).toBeGreaterThanOrEqual(0);
    expect(outcomes[1]!.outcome.reasons).toEqual(['/a must be number']);
    expect(lists).toHaveLength(1);
  });

  it('gets worker outcomes: with the parsed result, and without one when the worker read raw bytes', async () => {
    const { rewriter, outcomes } = setup({ pool: new OffloadPool(), offloadBytes: 100 });
    const text = `{"a":1,"pad":"${'x'.repeat(200)}"}`;
    await rewriter.respond(call, { message: answer(text) }, log);
    await rewriter.respond(call, { raw: JSON.stringify(answer(text, 7)), id: 7 }, log);
    expect(outcomes.map((o) => o.outcome.outcome)).toEqual(['extracted', 'extracted']);
    expect(outcomes[0]!.result).toBeDefined();
    expect(outcomes[1]!.result).toBeUndefined();
  });
});

describe('a failing observer', () => {
  it('changes nothing a client gets', () => {
    const observer: PipelineObserver = {
      outcome: () => {
        throw new Error('console bug');
      },
      listed: () => {
        throw new Error('console bug');
      },
    };
    const rewriter = createRewriter(createMetrics({ defaultMetrics: false }), { isolatePool: false, pool: false, observer });
    closing.push(rewriter);
    const out = rewriter.respond(call, { message: answer('{"a":1}') }, log);
    expect(out).toMatchObject({ kind: 'message', message: { result: { structuredContent: { a: 1 } } } });
    const listed = rewriter.respond({ upstream: 'u', method: 'tools/list', revision: '2025-11-25', policy }, { message: { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'typed', inputSchema: { type: 'object' } }] } } }, log);
    expect(listed).toMatchObject({ kind: 'message', message: { result: { tools: [{ name: 'typed', outputSchema: { type: 'object' } }] } } });
  });
});
