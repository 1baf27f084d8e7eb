import { describe, expect, it } from 'vitest';
import type { ToolConfig } from '../../../src/config/types.js';
import type { JsonObject } from '../../../src/json.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics, type Metrics } from '../../../src/metrics.js';
import { createRewriter, type PendingRequest, type Rewritten } from '../../../src/pipeline/rewrite.js';
import type { UpstreamPolicy } from '../../../src/retrofit/policy.js';
import { captureLogs, type LogLine } from '../../helpers/gateway.js';
import { upstreamWith } from '../retrofit/helpers.js';

/** The rewrite entry point on the main thread: what each client revision is served, and how it is counted. */
const OBJECT: ToolConfig = { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, onInvalid: 'error', coerce: false };
const ARRAY: ToolConfig = { outputSchema: { type: 'array', items: { type: 'number' } }, onInvalid: 'error', coerce: false };

function rewriterFor(tools: Record<string, ToolConfig>): { respond: (tool: string, revision: string, text: string) => Rewritten; metrics: Metrics; lines: LogLine[]; policy: UpstreamPolicy } {
  const policy = upstreamWith(tools);
  const metrics = createMetrics({ defaultMetrics: false });
  const { lines, stream } = captureLogs();
  const log = createLogger({ level: 'debug', destination: stream });
  const rewriter = createRewriter(metrics, { pool: false, isolatePool: false });
  return {
    policy,
    metrics,
    lines,
    respond(tool, revision, text) {
      const request: PendingRequest = { upstream: 'u', method: 'tools/call', tool, revision, policy };
      const out = rewriter.respond(request, { message: answer(text) }, log);
      if (out instanceof Promise) throw new Error('expected the main thread');
      return out;
    },
  };
}

const answer = (text: string): JsonObject => ({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } });

/** The result the client gets. */
function served(out: Rewritten): JsonObject {
  if (out.kind === 'message') return out.message.result as JsonObject;
  if (out.kind === 'unchanged') return out.original.result as JsonObject;
  throw new Error(`unexpected ${out.kind}`);
}

async function outcomes(metrics: Metrics): Promise<Record<string, unknown>[]> {
  return (await metrics.retrofits.get()).values.map((v) => ({ ...v.labels, value: v.value }));
}

describe('respond, mode applied (the client was shown the schema)', () => {
  it('serves structuredContent for a valid result and isError for an invalid one, at 2025-11-25', async () => {
    const r = rewriterFor({ t: OBJECT });
    expect(served(r.respond('t', '2025-11-25', '{"n":1}'))).toMatchObject({ structuredContent: { n: 1 } });
    const failed = served(r.respond('t', '2025-11-25', '{"n":"one"}'));
    expect(failed.isError).toBe(true);
    expect(failed).not.toHaveProperty('structuredContent');
    expect(await outcomes(r.metrics)).toEqual([
      expect.objectContaining({ tool: 't', outcome: 'extracted', mode: 'applied', value: 1 }),
      expect.objectContaining({ tool: 't', outcome: 'invalid', mode: 'applied', value: 1 }),
    ]);
    expect(r.lines.filter((l) => l.msg === 'retrofit').map((l) => l.level)).toEqual([20, 40]);
  });

  it('serves a non-object root as-is to 2026-07-28 clients, whatever legacyRoots says', async () => {
    const r = rewriterFor({ t: { ...ARRAY, legacyRoots: 'drop' } });
    expect(served(r.respond('t', '2026-07-28', '[1,2]'))).toMatchObject({ structuredContent: [1, 2] });
    expect(served(r.respond('t', '2026-07-28', '["x"]')).isError).toBe(true);
    expect((await outcomes(r.metrics)).map((o) => o.mode)).toEqual(['applied', 'applied']);
  });
});

describe('respond, mode unseen (the client was shown no schema for the tool)', () => {
  it('at 2025-03-26: a result failing the schema is not turned into isError, and is counted unseen', async () => {
    const r = rewriterFor({ t: OBJECT });
    const out = r.respond('t', '2025-03-26', '{"n":"one"}');
    expect(served(out)).toEqual(answer('{"n":"one"}').result);
    expect(served(out).isError).toBeUndefined();
    const unparseable = r.respond('t', '2025-03-26', 'no JSON here');
    expect(served(unparseable)).toEqual(answer('no JSON here').result);
    expect(await outcomes(r.metrics)).toEqual([
      expect.objectContaining({ tool: 't', outcome: 'invalid', mode: 'unseen', value: 1 }),
      expect.objectContaining({ tool: 't', outcome: 'unparseable', mode: 'unseen', value: 1 }),
    ]);
    // Nothing the client could act on: not a warning.
    expect(r.lines.filter((l) => l.msg === 'retrofit').map((l) => [l.level, l.mode])).toEqual([
      [20, 'unseen'],
      [20, 'unseen'],
    ]);
  });

  it('at 2025-03-26: a valid result is served without structuredContent, with a text block', async () => {
    const r = rewriterFor({ t: OBJECT });
    const result = served(r.respond('t', '2025-03-26', '{"n":1}'));
    expect(result).not.toHaveProperty('structuredContent');
    expect(result.content).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'text' })]));
    expect(result.isError).toBeUndefined();
    expect(await outcomes(r.metrics)).toEqual([expect.objectContaining({ outcome: 'extracted', mode: 'unseen' })]);
  });

  it('legacyRoots drop with a non-object schema at 2025-11-25: no isError for a failure, no structuredContent for a success', async () => {
    const r = rewriterFor({ t: { ...ARRAY, legacyRoots: 'drop' } });
    const failed = served(r.respond('t', '2025-11-25', '["x"]'));
    expect(failed.isError).toBeUndefined();
    expect(failed).toEqual(answer('["x"]').result);
    const ok = served(r.respond('t', '2025-11-25', '[1,2]'));
    expect(ok).not.toHaveProperty('structuredContent');
    expect(ok.content).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'text' })]));
    expect((await outcomes(r.metrics)).map((o) => [o.outcome, o.mode])).toEqual([
      ['invalid', 'unseen'],
      ['extracted', 'unseen'],
    ]);
  });

  it('legacyRoots wrap with a non-object schema at 2025-11-25 is applied: the wrapped value, and isError on failure', async () => {
    const r = rewriterFor({ t: { ...ARRAY, legacyRoots: 'wrap' } });
    expect(served(r.respond('t', '2025-11-25', '[1,2]'))).toMatchObject({ structuredContent: { result: [1, 2] } });
    expect(served(r.respond('t', '2025-11-25', '["x"]')).isError).toBe(true);
    expect((await outcomes(r.metrics)).map((o) => o.mode)).toEqual(['applied', 'applied']);
  });
});

describe('respond, what it leaves alone', () => {
  it('passes through results without a policy, errors, non-object results and other methods, never rejecting', () => {
    const r = rewriterFor({ t: OBJECT });
    const rewriter = createRewriter(r.metrics, { pool: false, isolatePool: false });
    const log = createLogger({ level: 'silent', destination: { write: () => undefined } });
    const request: PendingRequest = { upstream: 'u', method: 'tools/call', tool: 't', revision: '2025-11-25', policy: r.policy };
    const error = { jsonrpc: '2.0', id: 1, error: { code: -32000, message: 'boom' } };
    expect(rewriter.respond(request, { message: error }, log)).toEqual({ kind: 'unchanged', original: error });
    const { policy: _policy, ...noPolicy } = request;
    expect(rewriter.respond(noPolicy, { message: answer('{"n":1}') }, log)).toEqual({ kind: 'unchanged', original: answer('{"n":1}') });
    const isError = { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{"n":1}' }], isError: true } };
    expect(rewriter.respond(request, { message: isError }, log)).toEqual({ kind: 'unchanged', original: isError });
    expect(rewriter.respond({ ...request, method: 'resources/read' }, { message: answer('{"n":1}') }, log)).toEqual({ kind: 'unchanged', original: answer('{"n":1}') });
  });

  it('rewrites tools/list on the main thread, injecting the configured schema for the client revision', () => {
    const r = rewriterFor({ t: OBJECT });
    const rewriter = createRewriter(r.metrics, { pool: false, isolatePool: false });
    const log = createLogger({ level: 'silent', destination: { write: () => undefined } });
    const list = (revision: string): PendingRequest => ({ upstream: 'u', method: 'tools/list', revision, policy: r.policy });
    const message = { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 't', inputSchema: { type: 'object' } }] } };
    const modern = rewriter.respond(list('2025-11-25'), { message }, log);
    expect(modern).toMatchObject({ kind: 'message', message: { result: { tools: [{ name: 't', outputSchema: OBJECT.outputSchema }] } } });
    const old = rewriter.respond(list('2025-03-26'), { message }, log);
    expect(served(old as Rewritten).tools).toEqual([expect.not.objectContaining({ outputSchema: expect.anything() })]);
    expect(rewriter.needsRewrite('tools/list') && rewriter.needsRewrite('tasks/result') && !rewriter.needsRewrite('resources/read')).toBe(true);
    expect(rewriter.rawThreshold).toBeUndefined();
  });
});
