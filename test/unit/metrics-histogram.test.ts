/**
 * TwoLabelHistogram (src/metrics.ts) against prom-client's own Histogram: the same observations give the
 * same /metrics text (bucket bounds included: a value on a bound counts in it, one past the last only in +Inf;
 * label pairs in the order first observed) and the same JSON, and resetMetrics() clears it.
 */
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS, TwoLabelHistogram } from '../../src/metrics.js';

const NAME = 'x_latency_seconds';
const HELP = 'Latency.';

function pair(): { theirs: Registry; ours: Registry; observe: (upstream: string, method: string, value: number) => void } {
  const theirs = new Registry();
  const ours = new Registry();
  const reference = new Histogram({ name: NAME, help: HELP, labelNames: ['upstream', 'method'], buckets: [...LATENCY_BUCKETS], registers: [theirs] });
  const fast = new TwoLabelHistogram({ name: NAME, help: HELP, labelNames: ['upstream', 'method'], buckets: LATENCY_BUCKETS, registry: ours });
  return {
    theirs,
    ours,
    observe: (upstream, method, value) => {
      reference.observe({ upstream, method }, value);
      fast.observe(upstream, method, value);
    },
  };
}

describe('TwoLabelHistogram', () => {
  it('reads exactly as prom-client Histogram does, text and JSON', async () => {
    const { theirs, ours, observe } = pair();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    const values = [0, 0.0004, 0.001, 0.0011, 0.005, 0.3, 1, 2.5, 29.9, 30, 31, 1e6];
    values.forEach((v, i) => observe(i % 3 === 0 ? 'a' : 'b', i % 2 === 0 ? 'tools/call' : 'ping', v));
    observe('with "quotes"', 'x\\y', 0.02);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    // prom-client adds `exemplar: null` to each bucket (exemplars are off); nothing reads it.
    const withoutExemplars = (json: Awaited<ReturnType<Registry['getMetricsAsJSON']>>) => json.map((m) => ({ ...m, values: m.values.map((v) => Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'exemplar'))) }));
    expect(await ours.getMetricsAsJSON()).toEqual(withoutExemplars(await theirs.getMetricsAsJSON()));
  });

  it('is emptied by resetMetrics()', async () => {
    const { theirs, ours, observe } = pair();
    observe('a', 'ping', 0.2);
    theirs.resetMetrics();
    ours.resetMetrics();
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).not.toContain('_count');
  });
});
