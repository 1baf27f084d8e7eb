/**
 * `/metrics` after a scripted session: two real v1 SDK clients (one through a Streamable HTTP upstream, one
 * through a stdio upstream) list and call tools — one answer retrofitted, one that cannot be — then the
 * config is reloaded once successfully and once with an invalid file. The scrape, parsed as Prometheus text,
 * shows the requests, latency, retrofit outcomes, revisions, sessions, children and reloads that happened.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';
import { startServe } from '../helpers/serve.js';
import { startV1Server } from '../helpers/v1-server.js';

interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** Prometheus text exposition → samples, with TYPE lines checked against the names. */
function parseMetrics(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.startsWith('# TYPE ')) {
      const [, , name = '', type = ''] = line.split(' ');
      types.set(name, type);
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[pair[1]!] = pair[2]!;
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return { samples, types };
}

function value(samples: readonly Sample[], name: string, labels: Record<string, string>): number | undefined {
  return samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}

const config = (url: string, title = 'weather'): string => `
upstreams:
  web:
    url: ${url}
    tools:
      echo: { outputSchema: { type: object, title: ${title}, properties: { temperature: { type: number } }, required: [temperature] } }
  local:
    command: ${process.execPath}
    args: [${JSON.stringify(FIXTURE_SERVER)}]
    tools:
      echo: { outputSchema: { type: object, properties: { temperature: { type: number } }, required: [temperature] } }
`;

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'metrics-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  onTestFinished(() => client.close());
  return client;
}

describe('/metrics after a scripted session', () => {
  it('shows the requests, outcomes, revisions, sessions, children and reloads that happened', async () => {
    const upstream = await startV1Server();
    const gw = await startServe(config(upstream.url));
    for (const path of ['/web/mcp', '/local/mcp']) {
      const client = await connect(`${gw.origin}${path}`);
      await client.listTools();
      const good = await client.callTool({ name: 'echo', arguments: { text: '{"temperature": 21}' } });
      expect(good.structuredContent).toEqual({ temperature: 21 });
      const bad = await client.callTool({ name: 'echo', arguments: { text: 'sunny, no number today' } });
      expect(bad.isError).toBe(true);
    }
    gw.write(config(upstream.url, 'changed'));
    expect((await gw.sighup()).ok).toBe(true);
    gw.write('upstreams: [not a map]\n');
    expect((await gw.sighup()).ok).toBe(false);

    const response = await fetch(`${gw.origin}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const { samples, types } = parseMetrics(await response.text());

    for (const upstreamName of ['web', 'local']) {
      const labels = { upstream: upstreamName };
      expect(value(samples, 'mcp_retrofit_requests_total', { ...labels, method: 'tools/call', status: '200' }), upstreamName).toBe(2);
      expect(value(samples, 'mcp_retrofit_requests_total', { ...labels, method: 'tools/list', status: '200' }), upstreamName).toBe(1);
      expect(value(samples, 'mcp_retrofit_upstream_latency_seconds_count', { ...labels, method: 'tools/call' }), upstreamName).toBe(2);
      expect(value(samples, 'mcp_retrofit_retrofit_outcomes_total', { ...labels, tool: 'echo', outcome: 'extracted' }), upstreamName).toBe(1);
      const failed = samples.filter((s) => s.name === 'mcp_retrofit_retrofit_outcomes_total' && s.labels.upstream === upstreamName && s.labels.outcome !== 'extracted');
      expect(failed.map((s) => [s.labels.outcome, s.value]), upstreamName).toEqual([['unparseable', 1]]);
      expect(value(samples, 'mcp_retrofit_protocol_revisions_total', { ...labels, revision: '2025-11-25' }), upstreamName).toBeGreaterThanOrEqual(3);
      expect(value(samples, 'mcp_retrofit_active_sessions', labels), upstreamName).toBe(1);
    }
    expect(value(samples, 'mcp_retrofit_stdio_children', { upstream: 'local' })).toBe(1);
    expect(value(samples, 'mcp_retrofit_config_reloads_total', { result: 'ok' })).toBe(1);
    expect(value(samples, 'mcp_retrofit_config_reloads_total', { result: 'failed' })).toBe(1);
    // Default process metrics, under the same prefix.
    expect(value(samples, 'mcp_retrofit_process_cpu_user_seconds_total', {})).toBeGreaterThan(0);

    expect(types.get('mcp_retrofit_requests_total')).toBe('counter');
    expect(types.get('mcp_retrofit_upstream_latency_seconds')).toBe('histogram');
    expect(types.get('mcp_retrofit_active_sessions')).toBe('gauge');
  });
});
