/**
 * A slow reader of one server stream, in its own process: opens an MCP session (initialize, then
 * notifications/initialized), then the session's GET stream over a plain socket that it reads only
 * READ_BYTES every 100 ms (the socket is never flowing, so the kernel's buffers fill and the sender must
 * wait). Prints `ready` once the stream's headers are in, then one JSON line per second,
 * { t, bytes, events } (seconds since ready; body bytes and `data:` lines read so far), and exits after
 * SECONDS with a last line { done: true, ... }.
 * usage: node bench/lib/slow-reader.js URL SECONDS [READ_BYTES (default 4096)]
 */
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';

const [url, secondsText, readText] = process.argv.slice(2);
const seconds = Number(secondsText);
const readBytes = Number(readText ?? 4096);
const REVISION = '2025-06-18';
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': REVISION };

const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: REVISION, capabilities: {}, clientInfo: { name: 'slow-reader', version: '1' } } };
const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(init) });
await res.text();
const session = res.headers.get('mcp-session-id');
if (!res.ok || !session) throw new Error(`initialize: ${res.status}`);
await (await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();

const target = new URL(url);
const socket = connect(Number(target.port), target.hostname);
socket.setNoDelay(true);
socket.write(
  `GET ${target.pathname} HTTP/1.1\r\nHost: ${target.host}\r\nAccept: text/event-stream\r\nMcp-Session-Id: ${session}\r\nMcp-Protocol-Version: ${REVISION}\r\n\r\n`,
);

// Headers: read as they come (they are small), then never again faster than READ_BYTES per 100 ms.
let head = Buffer.alloc(0);
await new Promise((resolve, reject) => {
  const onReadable = () => {
    for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) continue;
      socket.off('readable', onReadable);
      const status = head.subarray(0, head.indexOf('\r\n')).toString('latin1');
      if (!/^HTTP\/1\.1 200/.test(status)) return reject(new Error(`GET stream: ${status}`));
      // Whatever came with the headers goes back to be read slowly like the rest.
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      return resolve();
    }
  };
  socket.on('readable', onReadable);
  socket.once('error', reject);
});

let bytes = 0;
let events = 0;
let carry = '';
const t0 = performance.now();
console.log('ready');
const DATA = /\ndata:/g;
const tick = setInterval(() => {
  // read(n) returns null unless n bytes are buffered: take what there is, at most readBytes.
  const n = Math.min(readBytes, socket.readableLength);
  const chunk = n > 0 ? socket.read(n) : (socket.read(0), null);
  if (chunk) {
    bytes += chunk.length;
    const text = carry + chunk.toString('latin1');
    events += text.match(DATA)?.length ?? 0;
    carry = text.slice(-5); // shorter than the pattern: no match is counted twice
  }
}, 100);
const report = setInterval(() => console.log(JSON.stringify({ t: (performance.now() - t0) / 1000, bytes, events })), 1000);
socket.once('close', () => {
  console.log(JSON.stringify({ closed: true, t: (performance.now() - t0) / 1000, bytes, events }));
  process.exit(1);
});
setTimeout(() => {
  clearInterval(tick);
  clearInterval(report);
  console.log(JSON.stringify({ done: true, t: (performance.now() - t0) / 1000, bytes, events }));
  socket.destroy();
  process.exit(0);
}, seconds * 1000);
