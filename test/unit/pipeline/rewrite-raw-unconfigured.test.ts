/**
 * A large answer of a configured tool for a client that gets it as if the tool were unconfigured (mode shadow,
 * or unseen: an old revision, a dropped non-object root, a profile that strips schemas), handed to the pipeline
 * as bytes. It used to be parsed whole on the event loop (offloadRaw took only mode applied); now the worker
 * parses and retrofits it, and the client's answer is decided from the worker's miniature of the result (a
 * projection of the upstream's own structuredContent runs on the worker too). Differential: for every case the
 * new path (raw) gives the bytes, counts, log lines and span of the path that parsed the message first, which
 * is what respondToRaw did before.
 */
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ToolConfig } from '../../../src/config/types.js';
import type { JsonObject } from '../../../src/json.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { OffloadPool } from '../../../src/pipeline/offload/pool.js';
import type { RecordSample } from '../../../src/record/index.js';
import { createRewriter, type PendingRequest, type Rewritten } from '../../../src/pipeline/rewrite.js';
import type { ClientProfile } from '../../../src/retrofit/profile.js';
import { ATTR_RETROFIT_DURATION_MS } from '../../../src/telemetry/names.js';
import { RequestTrace } from '../../../src/telemetry/spans.js';
import { captureLogs } from '../../helpers/gateway.js';
import { upstreamWith } from '../retrofit/helpers.js';

const SCHEMA = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };
const TOOLS: Record<string, ToolConfig> = {
  typed: { outputSchema: SCHEMA },
  listy: { outputSchema: { type: 'array' }, legacyRoots: 'drop' },
  shadowed: { outputSchema: SCHEMA, shadow: true },
};
const policy = { ...upstreamWith(TOOLS), record: { maxBytes: 1 << 30 } } as never;
const STRIP: ClientProfile = { name: 'strip', outputSchema: 'strip', schemaDialect: 'keep', textFallback: false, inputSchemaRoot: 'keep' };
const pad = 'x'.repeat(2000);

/** Results: their text well past the test's threshold; some with the upstream's own structuredContent. */
const RESULTS: Record<string, JsonObject> = {
  valid: { content: [{ type: 'text', text: JSON.stringify({ n: 1, pad }) }] },
  invalid: { content: [{ type: 'text', text: JSON.stringify({ n: 'one', pad }) }] },
  prose: { content: [{ type: 'text', text: `no JSON here ${pad}` }] },
  list: { content: [{ type: 'text', text: JSON.stringify([1, 2, pad]) }] },
  ownObject: { content: [{ type: 'text', text: pad }], structuredContent: { n: 2, pad } },
  ownArray: { content: [{ type: 'text', text: pad }], structuredContent: [1, pad] },
  ownNoText: { content: [], structuredContent: { n: 3, pad } },
  toolError: { isError: true, content: [{ type: 'text', text: `failed ${pad}` }] },
};

// One large-result worker for every case (a rewriter's close would close it: the pool is closed once, at the end).
const pool = new OffloadPool();
const providers: TracerProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.shutdown()));
});
afterAll(() => pool.close());

/** What one path did with one answer: the client's bytes, the counts, the log lines, the span, the recording. */
interface Seen {
  readonly bytes: string;
  readonly kind: Rewritten['kind'];
  readonly retrofits: unknown;
  readonly offloads: unknown;
  readonly logs: unknown[];
  readonly span: Record<string, unknown>;
  readonly recorded: unknown[];
  readonly unparsed: boolean;
}

async function run(tool: string, revision: string, profile: ClientProfile | undefined, raw: string, input: 'raw' | 'parsed'): Promise<Seen> {
  const metrics = createMetrics({ defaultMetrics: false });
  const { lines, stream } = captureLogs();
  const log = createLogger({ level: 'debug', destination: stream });
  const recorded: RecordSample[] = [];
  const rewriter = createRewriter(metrics, { pool, isolatePool: false, offloadBytes: 1000, recorder: { offer: (s) => void recorded.push(s) } });
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  providers.push(provider);
  const trace = new RequestTrace(provider.getTracer('test'), { method: 'tools/call', id: 7, tool, upstream: { name: 'u', transport: 'tcp' }, capture: { redactArguments: (t) => t, redactResult: (t) => t } });
  const request: PendingRequest = { upstream: 'u', method: 'tools/call', tool, revision, policy, arguments: {}, trace, ...(profile && { profile }) };
  const out = await rewriter.respond(request, input === 'raw' ? { raw: Buffer.from(raw), id: 7 } : { message: JSON.parse(raw) as JsonObject }, log);
  trace.end({});
  await provider.forceFlush();
  const bytes = out.kind === 'bytes' ? out.bytes.toString('utf8') : out.kind === 'message' ? JSON.stringify(out.message) : out.kind === 'unchanged' ? raw : 'mismatch';
  const attributes = { ...exporter.getFinishedSpans()[0]!.attributes };
  delete attributes[ATTR_RETROFIT_DURATION_MS];
  return {
    bytes,
    kind: out.kind,
    retrofits: (await metrics.retrofits.get()).values,
    offloads: (await metrics.offloads.get()).values,
    logs: lines.filter((l) => l.msg === 'retrofit').map(({ time: _t, pid: _p, hostname: _h, ...rest }) => rest),
    span: attributes,
    // The recorder parses raw bytes itself: what it gets is the same result either way.
    recorded: recorded.map((s) => ({ ...s, result: Buffer.isBuffer(s.result) ? (JSON.parse(s.result.toString('utf8')) as JsonObject).result : s.result, bytes: undefined })),
    unparsed: lines.some((l) => l.msg === 'retrofit offloaded to a worker' && l.unparsed === true),
  };
}

/** Every client that gets a configured tool's answer as if unconfigured: [tool, revision, profile]. */
const CLIENTS: [string, string, ClientProfile | undefined][] = [
  ['typed', '2025-03-26', undefined],
  ['typed', '2024-11-05', undefined],
  ['typed', '2025-11-25', STRIP],
  ['listy', '2025-06-18', undefined],
  ['shadowed', '2025-06-18', undefined],
  ['shadowed', '2025-03-26', undefined],
  ['shadowed', '2026-07-28', undefined],
  ['shadowed', '2025-11-25', STRIP],
];

describe('respond, raw input, modes shadow and unseen: worked on the worker, delivered as when parsed here', () => {
  const cases = CLIENTS.flatMap(([tool, revision, profile]) => Object.keys(RESULTS).map((name) => [tool, revision, profile?.name ?? '-', name] as const));
  it.each(cases)('%s for %s (profile %s), result %s', async (tool, revision, profileName, name) => {
    const profile = profileName === 'strip' ? STRIP : undefined;
    // Members in the order the SDK writes a response: result first.
    const raw = JSON.stringify({ result: RESULTS[name], jsonrpc: '2.0', id: 7 });
    const before = await run(tool, revision, profile, raw, 'parsed');
    const after = await run(tool, revision, profile, raw, 'raw');
    const same = ({ kind: _k, unparsed: _u, offloads: _o, ...seen }: Seen): Omit<Seen, 'kind' | 'unparsed' | 'offloads'> => seen;
    expect(same(after)).toEqual(same(before));
    // Never parsed on this thread: the worker read the bytes, and what the client gets is them or a worker's.
    expect(after.unparsed).toBe(true);
    expect(after.kind).not.toBe('message');
    // Counted where it was parsed: the worker now, also for what the parsed path kept inline (an isError result,
    // little text in large bytes), as for a client shown the schema.
    expect(after.offloads).toEqual([expect.objectContaining({ labels: { result: 'worker' }, value: 1 })]);
  });

  it('covers each way of delivering: as it came, the retrofit\'s bytes, and a projection of the upstream\'s own structuredContent', async () => {
    const raw = (name: string): string => JSON.stringify({ result: RESULTS[name], jsonrpc: '2.0', id: 7 });
    expect((await run('shadowed', '2025-06-18', undefined, raw('valid'), 'raw')).kind).toBe('unchanged');
    expect((await run('typed', '2025-03-26', undefined, raw('valid'), 'raw')).kind).toBe('bytes');
    const projected = await run('shadowed', '2025-06-18', undefined, raw('ownArray'), 'raw');
    expect(projected.kind).toBe('bytes');
    expect((JSON.parse(projected.bytes) as { result: JsonObject }).result.structuredContent).toEqual({ result: [1, pad] });
  });
});
