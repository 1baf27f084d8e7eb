/**
 * Regression: `extract.format: yaml` parsed upstream text on the event loop, and the yaml package is
 * superlinear on some inputs (20k `{` took a quarter second, 200k about half a minute); a later guard bounded
 * the parse but still blocked the event loop while it waited. YAML tools are now isolated: the rewrite
 * pipeline parses on its isolation worker under a deadline, the outcome says when it was stopped, and
 * ordinary reports still parse afterwards.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { createRewriter, type PendingRequest } from '../../src/pipeline/rewrite.js';
import { upstreamWith } from '../unit/retrofit/helpers.js';

const policy = upstreamWith({ info: { outputSchema: { type: 'object', required: ['status'] }, extract: { format: 'yaml' } } });
const rewriter = createRewriter(createMetrics({ defaultMetrics: false }), { pool: false });
rewriter.prepare([policy]);
afterAll(() => rewriter.close());
const log = createLogger({ level: 'silent' });
const request: PendingRequest = { upstream: 'u', method: 'tools/call', tool: 'info', revision: '2025-11-25', policy };

async function through(text: string): Promise<JsonObject> {
  const out = await rewriter.respond(request, { message: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text }] } } }, log);
  if (out.kind === 'message') return out.message.result as JsonObject;
  if (out.kind === 'unchanged') return out.original.result as JsonObject;
  // The worker's own serialisation of the whole rewritten message.
  if (out.kind === 'bytes') return (JSON.parse(out.bytes.toString('utf8')) as { result: JsonObject }).result;
  throw new Error(`unexpected ${out.kind}`);
}

describe('regression: an adversarial text for a yaml tool', () => {
  it('is stopped at the deadline on the isolation worker; ordinary reports still parse afterwards', async () => {
    expect(policy.resolve('info')?.compiled?.isolate).toBe('yaml parsing');
    const out = await through('{'.repeat(200_000));
    expect(out.isError).toBe(true);
    expect(((out.content as { text: string }[]).at(-1) ?? { text: '' }).text).toMatch(/ran longer than \d+ ms and was stopped/);
    const ok = await through('status: running\n__proto__:\n  polluted: yes');
    expect(ok.structuredContent).toEqual({ status: 'running' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
