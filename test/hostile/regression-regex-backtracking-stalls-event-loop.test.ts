/**
 * Regression: a configured `extract.pattern` ran on the event loop with no bound, so an upstream text chosen
 * against it (catastrophic backtracking: `(x+x+)+y` on 40 x's) blocked the whole gateway for minutes; later a
 * guard bounded it but still blocked the event loop (Atomics.wait) up to its deadline per call. Now patterns
 * RE2 can run are matched by re2js in linear time (nothing to stop), and the others (here made RE2-proof by
 * a lookahead) make their tool isolated: the rewrite pipeline runs its retrofits on the isolation worker
 * under a deadline, and the event loop never waits for them. The reading is stopped, the outcome says why
 * (an isError result naming the tool), and the next call works. No timing assertion: the event loop keeps
 * turning while the worker backtracks (a counter of turns proves it), and the worst delay is printed.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { createRewriter, ISOLATE_DEADLINE_MS, type PendingRequest } from '../../src/pipeline/rewrite.js';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { REGEX_MAX_INPUT } from '../../src/retrofit/extract/unbounded.js';
import { upstreamWith } from '../unit/retrofit/helpers.js';

const policy = upstreamWith({
  exponential: { outputSchema: { type: 'object' }, extract: { format: 'regex', pattern: '(?<a>(x+x+)+y)(?=$)' } },
  quadratic: { outputSchema: { type: 'array' }, extract: { format: 'regex', pattern: '(?<a>\\s*,)(?!x)', all: true } },
  linear: { outputSchema: { type: 'object' }, extract: { format: 'regex', pattern: '(?<a>(x+x+)+y)' } },
  fine: { outputSchema: { type: 'object', required: ['city'] }, extract: { format: 'regex', pattern: '(?<city>\\w+): (?<t>-?\\d+)(?=$)' } },
});

const rewriter = createRewriter(createMetrics({ defaultMetrics: false }), { pool: false });
rewriter.prepare([policy]);
afterAll(() => rewriter.close());
const log = createLogger({ level: 'silent' });
const request = (tool: string): PendingRequest => ({ upstream: 'u', method: 'tools/call', tool, revision: '2025-11-25', policy });
const answer = (t: string): JsonObject => ({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: t }] } });

/** The result the client gets for `text` from tool `tool`, through the one rewrite entry point. */
async function through(tool: string, text: string): Promise<JsonObject> {
  const out = await rewriter.respond(request(tool), { message: answer(text) }, log);
  if (out.kind === 'message') return out.message.result as JsonObject;
  if (out.kind === 'unchanged') return out.original.result as JsonObject;
  // The worker's own serialisation of the whole rewritten message.
  if (out.kind === 'bytes') return (JSON.parse(out.bytes.toString('utf8')) as { result: JsonObject }).result;
  throw new Error(`unexpected ${out.kind}`);
}

function failureText(result: JsonObject): string {
  return ((result.content as { text: string }[]).at(-1) ?? { text: '' }).text;
}

describe('regression: an adversarial text against a configured regex', () => {
  it('is stopped at the deadline on the isolation worker, while the event loop keeps turning', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 5);
    try {
      const exp = await through('exponential', 'x'.repeat(40));
      expect(exp.isError).toBe(true);
      expect(failureText(exp)).toMatch(/Tool "exponential" returned no output that could be read[\s\S]*ran longer than \d+ ms and was stopped/);
      // The event loop ran all along: the ticker fired while the worker was backtracking.
      expect(turns).toBeGreaterThan(ISOLATE_DEADLINE_MS / 50);

      const quad = await through('quadratic', ' '.repeat(200_000));
      expect(failureText(quad)).toMatch(/ran longer than \d+ ms and was stopped/);

      // The worker killed at the deadline is replaced: the next call works, named groups intact.
      expect((await through('fine', 'Paris: 21')).structuredContent).toEqual({ city: 'Paris', t: '21' });
    } finally {
      clearInterval(ticker);
      delay.disable();
    }
    expect(delay.count).toBeGreaterThan(0);
    process.stdout.write(`isolated regex: worst event-loop delay ${(delay.max / 1e6).toFixed(0)} ms (deadline ${ISOLATE_DEADLINE_MS} ms on the worker)\n`);
  });

  it('RE2 answers the same texts at once: no match, nothing to stop, not isolated', () => {
    expect(policy.resolve('linear')?.compiled?.isolate).toBeUndefined();
    expect(policy.resolve('exponential')?.compiled?.isolate).toBe('pattern uses lookahead, which RE2 cannot run');
    const out = rewriteToolCall({ content: [{ type: 'text', text: 'x'.repeat(100_000) }] }, 'linear', policy, '2025-11-25');
    expect(out.outcome).toMatchObject({ outcome: 'unparseable', reasons: ['the pattern does not match the text content'] });
  });

  it('refuses texts over the input limit before matching', async () => {
    const long = await through('fine', 'a'.repeat(REGEX_MAX_INPUT + 1));
    expect(failureText(long)).toContain(`the text is longer than ${REGEX_MAX_INPUT} characters, the limit for regex extraction`);
  });
});
