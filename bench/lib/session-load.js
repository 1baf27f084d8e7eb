/**
 * MCP session load, run as its own process: each of N workers opens a session (initialize, then
 * notifications/initialized, Mcp-Session-Id kept), calls one tool back to back until the time is up, then
 * DELETEs its session. Works against any Streamable HTTP endpoint (JSON or SSE answers), so every stdio
 * bridge gets the same client. Prints one JSON line: { requests, rps, p50, p99, max, errors, sessions, sse }
 * (`sse`: answers that came as an event stream).
 * At 2026-07-28 there is no session: the N workers send requests with the revision's `_meta` envelope and
 * headers (MCP-Protocol-Version, Mcp-Method, Mcp-Name), no initialize and no DELETE.
 * usage: node bench/lib/session-load.js URL SESSIONS SECONDS TOOL ARGS_JSON [REVISION (default 2025-06-18)]
 */
import { performance } from 'node:perf_hooks';
const [url, sessionsText, secondsText, tool, argsJson, revision = '2025-06-18'] = process.argv.slice(2);
const sessions = Number(sessionsText);
const seconds = Number(secondsText);
const toolArgs = JSON.parse(argsJson ?? '{}');
const BASE = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function post(headers, message) {
  const res = await fetch(url, { method: 'POST', headers: { ...BASE, ...headers }, body: JSON.stringify(message) });
  const text = await res.text();
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) sse++;
  return { res, text };
}

function percentile(sorted, p) {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

const MODERN = revision >= '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': revision, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' } };

async function open() {
  if (MODERN) return { 'mcp-protocol-version': revision, 'mcp-method': 'tools/call', 'mcp-name': tool };
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'bench', version: '1' } } };
  const { res, text } = await post({}, init);
  const id = res.headers.get('mcp-session-id');
  if (!res.ok || !text.includes('"result"')) throw new Error(`initialize failed: ${res.status} ${text.slice(0, 200)}`);
  const headers = { 'mcp-protocol-version': revision, ...(id && { 'mcp-session-id': id }) };
  await post(headers, { jsonrpc: '2.0', method: 'notifications/initialized' });
  return headers;
}

let sse = 0;
const latencies = [];
let errors = 0;
let firstError;
let opened = 0;
let deadline = 0;

async function worker(headers) {
  let id = 1;
  while (performance.now() < deadline) {
    const t0 = performance.now();
    try {
      const params = MODERN ? { name: tool, arguments: toolArgs, _meta: META } : { name: tool, arguments: toolArgs };
      const { res, text } = await post(headers, { jsonrpc: '2.0', id: id++, method: 'tools/call', params });
      if (!res.ok || !text.includes('"result"') || text.includes('"isError":true')) throw new Error(`${res.status} ${text.slice(0, 200)}`);
      latencies.push(performance.now() - t0);
    } catch (err) {
      errors++;
      firstError ??= err.message;
    }
  }
  if (headers['mcp-session-id']) await fetch(url, { method: 'DELETE', headers }).catch(() => {});
}

const all = await Promise.allSettled(Array.from({ length: sessions }, () => open()));
const ready = all.filter((r) => r.status === 'fulfilled').map((r) => r.value);
opened = ready.length;
const failedOpen = all.find((r) => r.status === 'rejected');
const t0 = performance.now();
deadline = t0 + seconds * 1000;
await Promise.all(ready.map(worker));
const elapsed = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
console.log(
  JSON.stringify({
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1],
    errors,
    sessions: opened,
    sse,
    ...(firstError && { firstError }),
    ...(failedOpen && { openError: String(failedOpen.reason?.message ?? failedOpen.reason) }),
  }),
);
