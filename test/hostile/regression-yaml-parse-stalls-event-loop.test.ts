/**
 * Regression: `extract.format: yaml` parsed upstream text on the event loop, and the yaml package is
 * superlinear on some inputs (20k `{` took a quarter second, 200k about half a minute; 1.5 MB of ordinary
 * `key: value` lines over a second). The parse now runs on the extraction guard's worker with the same
 * deadline as patterns, and the outcome says when it was stopped. No timing assertion: without the guard the
 * first case does not finish within the test timeout.
 */
import { describe, expect, it } from 'vitest';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { REGEX_DEADLINE_MS, whenRegexGuardReady } from '../../src/retrofit/extract/regex-guard.js';
import { upstreamWith } from '../unit/retrofit/helpers.js';

const policy = upstreamWith({ info: { outputSchema: { type: 'object', required: ['status'] }, extract: { format: 'yaml' } } });
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

describe('regression: an adversarial text for a yaml tool', () => {
  it('is stopped at the deadline and reported; ordinary reports still parse afterwards', async () => {
    await whenRegexGuardReady();
    const out = rewriteToolCall(text('{'.repeat(200_000)), 'info', policy, '2025-11-25');
    expect(out.outcome).toMatchObject({ outcome: 'unparseable', reasons: [`the YAML parse ran longer than ${REGEX_DEADLINE_MS} ms and was stopped`] });
    await whenRegexGuardReady();
    const ok = rewriteToolCall(text('status: running\n__proto__:\n  polluted: yes'), 'info', policy, '2025-11-25');
    expect(ok.result.structuredContent).toEqual({ status: 'running' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
