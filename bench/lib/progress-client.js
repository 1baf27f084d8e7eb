/**
 * Streaming probe, its own process: N sequential tools/call `progress` requests; for each, the time from the
 * upstream emitting its progress notification (the timestamp it wrote into the event, on the shared
 * performance.timeOrigin clock) to this client reading it, and when the final result came.
 * Prints one JSON line: { n, p50, p99, max, beforeResult } (ms; beforeResult: notifications that arrived
 * before the result, i.e. not held back).
 * usage: node bench/lib/progress-client.js URL N
 */
import { performance } from 'node:perf_hooks';
const [url, nText] = process.argv.slice(2);
const n = Number(nText);
const now = () => performance.timeOrigin + performance.now();
const delays = [];
let beforeResult = 0;

for (let i = 0; i < n; i++) {
  const body = { jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'progress', arguments: {}, _meta: { progressToken: `p${i}` } } };
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }, body: JSON.stringify(body) });
  const decoder = new TextDecoder();
  let text = '';
  let seen = false;
  for await (const chunk of res.body) {
    text += decoder.decode(chunk, { stream: true });
    if (!seen) {
      const m = /emitted ([\d.]+)/.exec(text);
      if (m) {
        delays.push(now() - Number(m[1]));
        seen = true;
        if (!text.includes('"result"')) beforeResult++;
      }
    }
  }
  if (!seen) throw new Error(`no progress notification in: ${text.slice(0, 300)}`);
}
delays.sort((a, b) => a - b);
const pct = (p) => delays[Math.min(delays.length - 1, Math.ceil((p / 100) * delays.length) - 1)];
console.log(JSON.stringify({ n, p50: pct(50), p99: pct(99), max: delays[delays.length - 1], beforeResult }));
