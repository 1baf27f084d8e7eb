/**
 * A separate client process that calls one tool in a loop, CONCURRENCY calls at a time (default 1), until
 * SIGTERM; prints each call's duration in ms as `took <ms> <status>`. Used to keep 10 MB retrofits (or
 * catastrophic patterns) running inside the gateway while small calls are measured.
 * usage: node bench/lib/caller.js URL TOOL [CONCURRENCY]
 */
import { performance } from 'node:perf_hooks';
const [url, tool, concurrency = '1'] = process.argv.slice(2);
let stop = false;
process.on('SIGTERM', () => {
  stop = true;
});
console.log('ready');
let id = 0;

async function loop() {
  while (!stop) {
    const t0 = performance.now();
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: tool, arguments: {} } }),
    });
    const text = await res.text();
    const ok = res.ok && text.includes('structuredContent');
    console.log(`took ${(performance.now() - t0).toFixed(1)} ${res.status}${ok ? '' : ' not-retrofitted'}`);
  }
}

await Promise.all(Array.from({ length: Number(concurrency) }, loop));
process.exit(0);
