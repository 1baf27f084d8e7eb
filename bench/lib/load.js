/**
 * Load generation from a separate process: autocannon (the project's dev dependency) as a child, with its
 * JSON output. Returns throughput and latency percentiles for POSTing one JSON-RPC body.
 */
import { join } from 'node:path';
import { runToEnd } from './procs.js';
import { ROOT } from './servers.js';

const AUTOCANNON = join(ROOT, 'node_modules', 'autocannon', 'autocannon.js');

/** A tools/call body for `tool`. */
export function toolCall(tool, id = 1, meta) {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: {}, ...(meta && { _meta: meta }) } });
}

export const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

/**
 * POST `body` to `url` with `connections` connections for `seconds`.
 * Resolves { rps, p50, p99, max, requests, errors, non2xx } (latencies in ms).
 */
export async function autocannon(url, { body, headers = MCP_HEADERS, connections = 8, seconds = 10 }) {
  const args = ['--json', '-c', String(connections), '-d', String(seconds), '-m', 'POST', '-b', body];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}=${v}`);
  args.push(url);
  const out = await runToEnd(process.execPath, [AUTOCANNON, ...args], { timeoutMs: (seconds + 30) * 1000 });
  const r = JSON.parse(out.slice(out.indexOf('{')));
  return {
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    max: r.latency.max,
    requests: r.requests.total,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
  };
}
