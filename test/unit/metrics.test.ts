import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../src/metrics.js';

describe('createMetrics', () => {
  it('names follow Prometheus conventions: prefix, _total counters, _seconds histograms, snake_case labels', async () => {
    const metrics = createMetrics();
    const all = await metrics.registry.getMetricsAsJSON();
    const own = all.filter((m) => !m.name.startsWith('mcp_retrofit_process_') && !m.name.startsWith('mcp_retrofit_nodejs_'));
    expect(own.map((m) => m.name).sort()).toEqual([
      'mcp_retrofit_active_sessions',
      'mcp_retrofit_bridged_sessions_total',
      'mcp_retrofit_client_profile_answers_total',
      'mcp_retrofit_config_reloads_total',
      'mcp_retrofit_offloaded_retrofits_total',
      'mcp_retrofit_protocol_revisions_total',
      'mcp_retrofit_record_drops_total',
      'mcp_retrofit_recorded_results_total',
      'mcp_retrofit_requests_total',
      'mcp_retrofit_retrofit_outcomes_total',
      'mcp_retrofit_slow_clients_total',
      'mcp_retrofit_stdio_children',
      'mcp_retrofit_tool_repairs_total',
      'mcp_retrofit_upstream_errors_total',
      'mcp_retrofit_upstream_latency_seconds',
    ]);
    // prom-client's typings say MetricType is a numeric enum; at run time it is the type's name.
    const counters = all.filter((m) => String(m.type) === 'counter').map((m) => m.name);
    expect(counters).toContain('mcp_retrofit_requests_total');
    for (const m of all) {
      expect(m.name).toMatch(/^mcp_retrofit_[a-z0-9_]+$/);
      if (String(m.type) === 'counter') expect(m.name).toMatch(/_total$/);
      if (String(m.type) === 'histogram' && !m.name.includes('nodejs_')) expect(m.name).toMatch(/_seconds$/);
    }
    expect(all.some((m) => m.name === 'mcp_retrofit_process_cpu_user_seconds_total')).toBe(true);
  });

  it('each gateway gets its own registry, and default metrics can be left out', async () => {
    const a = createMetrics({ defaultMetrics: false });
    const b = createMetrics({ defaultMetrics: false });
    a.reloads.inc({ result: 'ok' });
    expect(await a.registry.metrics()).toContain('mcp_retrofit_config_reloads_total{result="ok"} 1');
    expect(await b.registry.metrics()).not.toContain('result="ok"');
    expect(await a.registry.metrics()).not.toContain('process_cpu');
  });

  it('a Tally hands its counts to the counter whenever the counter is read, new and repeated label tuples alike', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.requests.inc('up', 'tools/call', 200);
    metrics.requests.inc('up', 'tools/call', 200);
    metrics.requests.inc('up', 'GET', 404);
    metrics.requests.inc('up', 'tools/call', 200);
    const text = await metrics.registry.metrics();
    expect(text).toContain('mcp_retrofit_requests_total{upstream="up",method="tools/call",status="200"} 3');
    expect(text).toContain('mcp_retrofit_requests_total{upstream="up",method="GET",status="404"} 1');
    metrics.revisions.inc('up', '2025-06-18', 'header');
    metrics.requests.inc('up', 'GET', 404);
    const values = (await metrics.requests.get()).values.map((v) => [v.labels.method, v.value]);
    expect(values).toEqual([
      ['tools/call', 3],
      ['GET', 2],
    ]);
    expect(await metrics.registry.metrics()).toContain('mcp_retrofit_protocol_revisions_total{upstream="up",revision="2025-06-18",source="header"} 1');
  });

  it('a Tally of five labels (retrofit outcomes) keeps tuples that share a prefix apart', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.retrofits.inc('up', 'weather', 'extracted', 'json', 'applied');
    metrics.retrofits.inc('up', 'weather', 'extracted', 'json', 'shadow');
    metrics.retrofits.inc('up', 'weather', 'extracted', 'json', 'applied');
    metrics.retrofits.inc('up', 'weather', 'invalid', 'json', 'applied');
    const counts = (await metrics.retrofits.get()).values.map((v) => `${v.labels.tool} ${v.labels.outcome} ${v.labels.format} ${v.labels.mode} ${v.value}`);
    expect(counts.sort()).toEqual(['weather extracted json applied 2', 'weather extracted json shadow 1', 'weather invalid json applied 1']);
    metrics.retrofits.inc('up', 'weather', 'invalid', 'json', 'applied');
    expect(await metrics.registry.metrics()).toContain('mcp_retrofit_retrofit_outcomes_total{upstream="up",tool="weather",outcome="invalid",format="json",mode="applied"} 2');
  });
});
