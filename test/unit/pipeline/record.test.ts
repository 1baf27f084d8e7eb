/**
 * The rewrite entry point offers tools/call answers of recording upstreams (policy.record) to the recorder:
 * the upstream's result before any retrofit, with the request's arguments and revision, once per request,
 * parsed or as the raw bytes a worker parses; nothing else.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { OffloadPool } from '../../../src/pipeline/offload/pool.js';
import { createRewriter, type PendingRequest, type Rewriter, type RewriterOptions } from '../../../src/pipeline/rewrite.js';
import type { UpstreamPolicy } from '../../../src/retrofit/policy.js';
import type { RecordSample } from '../../../src/record/index.js';
import { upstreamWith } from '../retrofit/helpers.js';

const log = createLogger({ level: 'silent' });
const tools = { typed: { outputSchema: { type: 'object' } } };
const recording: UpstreamPolicy = { ...upstreamWith(tools), record: { dir: '/nowhere', maxPerTool: 5, maxBytes: 1000 } };
const quiet = upstreamWith(tools);
const answer = (text: string, id: number | string = 1): JsonObject => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const call = (tool: string, extra: Partial<PendingRequest> = {}): PendingRequest => ({ upstream: 'u', method: 'tools/call', tool, revision: '2025-11-25', policy: recording, ...extra });

const closing: Rewriter[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((r) => r.close()));
});

function setup(options: RewriterOptions = { pool: false }): { rewriter: Rewriter; offers: RecordSample[] } {
  const offers: RecordSample[] = [];
  const rewriter = createRewriter(createMetrics({ defaultMetrics: false }), { isolatePool: false, ...options, recorder: { offer: (s) => void offers.push(s) } });
  closing.push(rewriter);
  return { rewriter, offers };
}

describe('recording through respond()', () => {
  it("offers the upstream's result as it came, with arguments and revision, while the client gets the retrofit", () => {
    const { rewriter, offers } = setup();
    const message = answer('{"a":1}');
    const out = rewriter.respond(call('typed', { arguments: { city: 'Paris' } }), { message }, log);
    expect(out).toMatchObject({ kind: 'message', message: { result: { structuredContent: { a: 1 } } } });
    expect(offers).toHaveLength(1);
    expect(offers[0]).toEqual({ upstream: 'u', tool: 'typed', result: message.result, bytes: 7, revision: '2025-11-25', arguments: { city: 'Paris' } });
    // The very object: the recording is what the upstream sent, not the rewritten result.
    expect(offers[0]?.result).toBe(message.result);
  });

  it('records tools without a configured schema too, and counts text only up to just past maxBytes', () => {
    const { rewriter, offers } = setup();
    rewriter.respond(call('other'), { message: answer('x'.repeat(5000)) }, log);
    expect(offers.map((o) => [o.tool, o.bytes])).toEqual([['other', 5000]]);
  });

  it('offers once per request: a replayed answer (resumed stream) is not recorded again', () => {
    const { rewriter, offers } = setup();
    const request = call('typed');
    rewriter.respond(request, { message: answer('{"a":1}') }, log);
    rewriter.respond(request, { message: answer('{"a":1}') }, log);
    rewriter.respond(call('typed'), { message: answer('{"a":2}', 2) }, log);
    expect(offers).toHaveLength(2);
  });

  it('offers nothing for upstreams that do not record, tools/list, tasks/result and error responses', () => {
    const { rewriter, offers } = setup();
    rewriter.respond(call('typed', { policy: quiet }), { message: answer('{"a":1}') }, log);
    rewriter.respond(call('typed', { method: 'tasks/result' }), { message: answer('{"a":1}') }, log);
    rewriter.respond({ upstream: 'u', method: 'tools/list', revision: '2025-11-25', policy: recording }, { message: { jsonrpc: '2.0', id: 1, result: { tools: [] } } }, log);
    const request = call('typed');
    rewriter.respond(request, { message: { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'no' } } }, log);
    expect(offers).toEqual([]);
    // An error response did not use up the request's one offer.
    rewriter.respond(request, { message: answer('{"a":1}') }, log);
    expect(offers).toHaveLength(1);
  });

  it('offers the raw bytes of an answer that goes to the worker unparsed', async () => {
    const { rewriter, offers } = setup({ pool: new OffloadPool(), offloadBytes: 100 });
    const raw = Buffer.from(JSON.stringify(answer(JSON.stringify({ a: 'x'.repeat(500) }), 7)));
    const out = await rewriter.respond(call('typed'), { raw, id: 7 }, log);
    expect(out.kind).toBe('bytes');
    expect(offers).toHaveLength(1);
    expect(offers[0]?.result).toBe(raw);
    expect(offers[0]).not.toHaveProperty('bytes');
  });
});
