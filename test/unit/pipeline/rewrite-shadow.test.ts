/**
 * The rewrite entry point for shadowed tools (`shadow: true`, or `onInvalid: passthrough`): the retrofit runs
 * and is counted with mode "shadow", inline and on the large-result worker alike, and the client gets the
 * upstream's answer as it came (the very object, so a transport forwards the bytes it received).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ToolConfig } from '../../../src/config/types.js';
import type { JsonObject } from '../../../src/json.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics, type Metrics } from '../../../src/metrics.js';
import { OffloadPool } from '../../../src/pipeline/offload/pool.js';
import { createRewriter, type PendingRequest, type Rewriter, type RewriterOptions } from '../../../src/pipeline/rewrite.js';
import { captureLogs, type LogLine } from '../../helpers/gateway.js';
import { upstreamWith } from '../retrofit/helpers.js';

const SCHEMA = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
const TOOLS: Record<string, ToolConfig> = {
  shadowed: { outputSchema: SCHEMA, shadow: true },
  passthrough: { outputSchema: SCHEMA, onInvalid: 'passthrough' },
  served: { outputSchema: SCHEMA },
};
const policy = upstreamWith(TOOLS);
const answer = (text: string, id = 1): JsonObject => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const call = (tool: string, revision = '2025-11-25'): PendingRequest => ({ upstream: 'u', method: 'tools/call', tool, revision, policy });

const closing: Rewriter[] = [];
afterEach(async () => {
  await Promise.all(closing.splice(0).map((r) => r.close()));
});

function setup(options: RewriterOptions = { pool: false }): { rewriter: Rewriter; metrics: Metrics; lines: LogLine[]; log: ReturnType<typeof createLogger> } {
  const metrics = createMetrics({ defaultMetrics: false });
  const { lines, stream } = captureLogs();
  const rewriter = createRewriter(metrics, { isolatePool: false, ...options });
  closing.push(rewriter);
  return { rewriter, metrics, lines, log: createLogger({ level: 'debug', destination: stream }) };
}

async function outcomes(metrics: Metrics): Promise<string[]> {
  return (await metrics.retrofits.get()).values.map((v) => `${v.labels.tool} ${v.labels.outcome} ${v.labels.mode} ${v.value}`);
}

describe('respond, mode shadow', () => {
  it('answers every client with the message as received, valid or not, and counts what the retrofit found', async () => {
    const { rewriter, metrics, lines, log } = setup();
    for (const tool of ['shadowed', 'passthrough']) {
      for (const revision of ['2025-03-26', '2025-11-25', '2026-07-28']) {
        for (const text of ['{"n":1}', '{"n":"one"}', 'no JSON']) {
          const message = answer(text);
          expect(rewriter.respond(call(tool, revision), { message }, log)).toEqual({ kind: 'unchanged', original: message });
        }
      }
    }
    expect(await outcomes(metrics)).toEqual([
      'shadowed extracted shadow 3',
      'shadowed invalid shadow 3',
      'shadowed unparseable shadow 3',
      'passthrough extracted shadow 3',
      'passthrough invalid shadow 3',
      'passthrough unparseable shadow 3',
    ]);
    // Failures are logged at warn with their reasons, as for a served schema.
    const invalid = lines.find((l) => l.msg === 'retrofit' && l.outcome === 'invalid');
    expect(invalid).toMatchObject({ level: 40, mode: 'shadow', tool: 'shadowed', reasons: ['/n must be number'] });
  });

  it('a served tool beside them is still applied', async () => {
    const { rewriter, metrics, log } = setup();
    const out = rewriter.respond(call('served'), { message: answer('{"n":1}') }, log);
    expect(out).toMatchObject({ kind: 'message', message: { result: { structuredContent: { n: 1 } } } });
    expect(await outcomes(metrics)).toEqual(['served extracted applied 1']);
  });

  it('a large result is retrofitted on the worker and still reaches the client unchanged', async () => {
    const { rewriter, metrics, lines, log } = setup({ pool: new OffloadPool(), offloadBytes: 100 });
    const text = JSON.stringify({ n: 1, pad: 'x'.repeat(1000) });
    const message = answer(text);
    const job = rewriter.respond(call('shadowed'), { message }, log);
    expect(job).toBeInstanceOf(Promise);
    expect(await job).toEqual({ kind: 'unchanged', original: message });
    // Raw input of a shadowed tool goes to the worker unparsed too, and is decided the same way: the bytes as they
    // came (the original is the worker's stub of the response).
    const raw = JSON.stringify(answer(text, 2));
    expect(await rewriter.respond(call('shadowed'), { raw, id: 2 }, log)).toEqual({ kind: 'unchanged', original: { jsonrpc: '2.0', id: 2, result: {} } });
    expect(lines.filter((l) => l.msg === 'retrofit offloaded to a worker').map((l) => l.unparsed)).toEqual([undefined, true]);
    expect(await outcomes(metrics)).toEqual(['shadowed extracted shadow 2']);
    expect((await metrics.offloads.get()).values.map((v) => `${v.labels.result} ${v.value}`)).toEqual(['worker 2']);
  });

  it('tools/list does not show a shadowed schema, and shows the served one', () => {
    const { rewriter, log } = setup();
    const list: JsonObject = { jsonrpc: '2.0', id: 1, result: { tools: ['shadowed', 'passthrough', 'served'].map((name) => ({ name, inputSchema: { type: 'object' } })) } };
    const out = rewriter.respond({ ...call('x'), method: 'tools/list' }, { message: list }, log);
    if (out instanceof Promise || out.kind !== 'message') throw new Error('expected a rewritten list');
    expect((out.message.result as { tools: JsonObject[] }).tools.map((t) => t.outputSchema)).toEqual([undefined, undefined, SCHEMA]);
  });
});
