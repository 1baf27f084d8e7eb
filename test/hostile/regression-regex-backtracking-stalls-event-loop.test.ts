/**
 * Regression: a configured `extract.pattern` ran on the event loop with no bound, so an upstream text chosen
 * against it (catastrophic backtracking: `(x+x+)+y` on 40 x's) blocked the whole gateway for minutes, and
 * a merely quadratic one (`\s*,` over 100k spaces) for many seconds. Now patterns RE2 can run are matched by
 * re2js in linear time (no stall to stop), and the others (here made RE2-proof by a lookahead) run on a
 * worker thread with a deadline (REGEX_DEADLINE_MS) and an input limit (REGEX_MAX_INPUT): the reading is
 * stopped, the outcome says why, and the next call works. No timing assertion: without the guard these cases do not end
 * within the test timeout; the event-loop delay is measured and must stay below the test's own timeout.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { REGEX_DEADLINE_MS, REGEX_MAX_INPUT, runRegex, whenRegexGuardReady } from '../../src/retrofit/extract/regex-guard.js';
import { upstreamWith } from '../unit/retrofit/helpers.js';

const policy = upstreamWith({
  exponential: { outputSchema: { type: 'object' }, extract: { format: 'regex', pattern: '(?<a>(x+x+)+y)(?=$)' } },
  quadratic: { outputSchema: { type: 'array' }, extract: { format: 'regex', pattern: '(?<a>\\s*,)(?!x)', all: true } },
  autoPattern: { outputSchema: { type: 'object', required: ['a'] }, extract: { format: 'auto', pattern: '(?<a>(x+x+)+y)(?=$)' } },
  linear: { outputSchema: { type: 'object' }, extract: { format: 'regex', pattern: '(?<a>(x+x+)+y)' } },
  fine: { outputSchema: { type: 'object', required: ['city'] }, extract: { format: 'regex', pattern: '(?<city>\\w+): (?<t>-?\\d+)' } },
});

const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
/** One turn of the event loop: the delay monitor's overdue timer fires (and records) before this resolves. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
const STOPPED = `the pattern ran longer than ${REGEX_DEADLINE_MS} ms and was stopped`;

describe('regression: an adversarial text against a configured regex', () => {
  it('is stopped at the deadline and reported, without stalling the event loop for the whole match', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    // As after config load: the worker has booted while the event loop ran.
    await whenRegexGuardReady();
    try {
      const exp = rewriteToolCall(text('x'.repeat(40)), 'exponential', policy, '2025-11-25');
      expect(exp.outcome).toMatchObject({ outcome: 'unparseable', reasons: [STOPPED] });
      expect(exp.result.isError).toBe(true);
      // Right after a stop, a call does not wait for the replacement worker to finish booting.
      const next = rewriteToolCall(text('Paris: 21'), 'fine', policy, '2025-11-25');
      expect(next.result.structuredContent ?? next.outcome.reasons).toSatisfy(
        (v: unknown) => JSON.stringify(v) === JSON.stringify({ city: 'Paris', t: '21' }) || JSON.stringify(v) === JSON.stringify(['the pattern worker is still starting']),
      );
      await turn();
      await whenRegexGuardReady();

      const quad = rewriteToolCall(text(' '.repeat(200_000)), 'quadratic', policy, '2025-11-25');
      expect(quad.outcome.reasons).toEqual([STOPPED]);
      await turn();
      await whenRegexGuardReady();

      // Under auto the stopped regex is one reading among others; the outcome names it.
      const auto = rewriteToolCall(text('x'.repeat(40)), 'autoPattern', policy, '2025-11-25');
      expect(auto.outcome.reasons).toContain(STOPPED);
      await turn();
    } finally {
      delay.disable();
    }
    // Measured, not bounded here (timing assertions are banned): the worst stall seen while the guard worked
    // was recorded, and is printed for whoever reads the run.
    expect(delay.count).toBeGreaterThan(0);
    process.stdout.write(`regex guard: worst event-loop delay ${(delay.max / 1e6).toFixed(0)} ms (deadline ${REGEX_DEADLINE_MS} ms)\n`);
  });

  it('RE2 answers the same texts at once: no match, nothing to stop, no guard', () => {
    expect(policy.resolve('linear')?.compiled?.isolate).toBeUndefined();
    expect(policy.resolve('exponential')?.compiled?.isolate).toBe('pattern uses lookahead, which RE2 cannot run');
    const out = rewriteToolCall(text('x'.repeat(100_000)), 'linear', policy, '2025-11-25');
    expect(out.outcome).toMatchObject({ outcome: 'unparseable', reasons: ['the pattern does not match the text content'] });
  });

  it('refuses texts over the input limit before matching, and keeps working afterwards', async () => {
    const long = rewriteToolCall(text('a'.repeat(REGEX_MAX_INPUT + 1)), 'fine', policy, '2025-11-25');
    expect(long.outcome.reasons).toEqual([`the text is longer than ${REGEX_MAX_INPUT} characters, the limit for regex extraction`]);

    // The worker killed by the deadline is replaced: ordinary matches still work, named groups intact.
    await whenRegexGuardReady();
    expect(runRegex('x'.repeat(40), /(x+x+)+y/, false)).toEqual({ ok: false, reason: STOPPED });
    await whenRegexGuardReady();
    const ok = rewriteToolCall(text('Paris: 21'), 'fine', policy, '2025-11-25');
    expect(ok.result.structuredContent).toEqual({ city: 'Paris', t: '21' });
    expect(runRegex('a1 b2', /(?<k>[a-z])(?<v>\d)/g, true)).toEqual({ ok: true, matches: [{ text: 'a1', groups: { k: 'a', v: '1' } }, { text: 'b2', groups: { k: 'b', v: '2' } }] });
    expect(runRegex('__proto__: 1', /(?<__proto__>\w+)/, false)).toMatchObject({ ok: true });
  });
});
