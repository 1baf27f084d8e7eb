/**
 * One request whose answer is a very large SSE event (scenario 8), in its own process — resources/read of the
 * resource TARGET (or, with a `tool:` prefix, tools/call of that tool): reads the body as
 * fast as it comes and throws it away, and prints one JSON line { headersAt, firstByteAt, endAt, bytes,
 * tail, error } — times on the performance.timeOrigin clock the upstream also stamps with; `tail` is the
 * last 200 bytes (to tell a whole answer from an error event); `error` a RETROFIT_ERR_ code seen in the body.
 * usage: node bench/lib/huge-client.js URL TARGET
 */
import { performance } from 'node:perf_hooks';

const [url, target = 'huge'] = process.argv.slice(2);
const now = () => performance.timeOrigin + performance.now();
const body = JSON.stringify(
  target.startsWith('tool:')
    ? { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: target.slice(5), arguments: {} } }
    : { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: target } },
);
const res = await fetch(url, {
  method: 'POST',
  headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
  body,
});
const headersAt = now();
let firstByteAt = 0;
let bytes = 0;
let head = '';
let tail = Buffer.alloc(0);
for await (const chunk of res.body) {
  if (firstByteAt === 0) firstByteAt = now();
  bytes += chunk.length;
  if (head.length < 400) head += Buffer.from(chunk.subarray(0, 400)).toString('utf8');
  tail = Buffer.concat([tail, chunk.subarray(Math.max(0, chunk.length - 200))]).subarray(-200);
}
const endAt = now();
const text = head + tail.toString('utf8');
const error = /RETROFIT_ERR_[A-Z_]+/.exec(text)?.[0];
console.log(JSON.stringify({ status: res.status, headersAt, firstByteAt, endAt, bytes, tail: tail.toString('utf8').slice(-120), ...(error && { error }) }));
