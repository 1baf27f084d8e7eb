/**
 * An MCP upstream on raw node:http, in its own process, for the streaming scenarios 7 and 8 (issue 23):
 * - GET (a session's server stream) sends `notifications/message` events as fast as the reader takes them:
 *   it writes until the socket says stop, then waits for `drain` (so what piles up between it and the client
 *   is the gateway's doing, not this server's), EVENTS_PER_TICK events per turn of its event loop.
 * - resources/read `huge` (and tools/call `huge`) answers with one SSE event whose text is HUGE_BYTES long (default 200 MiB), written in
 *   1 MiB slices with backpressure and never held whole; the time its first byte went out is kept (on the
 *   performance.timeOrigin clock, which the bench's client shares) for the first-byte delay.
 * - initialize hands out a session id; notifications get 202; DELETE 200; anything else an empty result.
 * GET /stats: { streams, events, eventBytes, huge: { firstByteAt, bytes, done } } (events and their bytes
 * written to GET streams so far; the last `huge` answer).
 * Prints `listening http://127.0.0.1:PORT`.
 */
import { performance } from 'node:perf_hooks';
import { createServer } from 'node:http';

const HUGE_BYTES = Number(process.env.HUGE_BYTES ?? 200 * 1024 * 1024);
const EVENTS_PER_TICK = 64;
const SLICE = Buffer.alloc(1024 * 1024, 'x');
const INIT = JSON.stringify({ protocolVersion: '2025-06-18', capabilities: { tools: {}, logging: {} }, serverInfo: { name: 'stream-upstream', version: '1.0.0' } });
const now = () => performance.timeOrigin + performance.now();

let sessions = 0;
let streams = 0;
let events = 0;
let eventBytes = 0;
let huge = { firstByteAt: 0, bytes: 0, done: false };

function json(res, id, resultJson, headers = {}) {
  const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Notifications as fast as the socket drains; stops when the client (the gateway) closes the stream. */
function flood(res) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  streams++;
  let open = true;
  res.once('close', () => {
    open = false;
    streams--;
  });
  const pump = () => {
    while (open) {
      let ok = true;
      for (let i = 0; i < EVENTS_PER_TICK && ok; i++) {
        const note = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"bench","data":{"seq":${events},"at":${now().toFixed(1)}}}}\n\n`;
        events++;
        eventBytes += note.length;
        ok = res.write(note);
      }
      if (!ok) return void res.once('drain', pump);
      // Yield to the event loop between batches, so close and /stats are seen.
      return void setImmediate(pump);
    }
  };
  pump();
}

/**
 * One SSE event holding a result whose text is HUGE_BYTES of `x`, written slice by slice: a ReadResourceResult
 * for resources/read, a CallToolResult for tools/call.
 */
function hugeAnswer(res, id, method) {
  huge = { firstByteAt: 0, bytes: 0, done: false };
  const result = method === 'resources/read' ? '{"contents":[{"uri":"huge","text":"' : '{"content":[{"type":"text","text":"';
  const head = Buffer.from(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}`);
  const tail = Buffer.from('"}]}}\n\n');
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  let left = HUGE_BYTES;
  let open = true;
  res.once('close', () => (open = false));
  const send = (chunk) => {
    if (huge.firstByteAt === 0) huge.firstByteAt = now();
    huge.bytes += chunk.length;
    return res.write(chunk);
  };
  const pump = () => {
    while (open && left > 0) {
      const n = Math.min(left, SLICE.length);
      left -= n;
      if (!send(n === SLICE.length ? SLICE : SLICE.subarray(0, n))) return void res.once('drain', pump);
    }
    if (open && left === 0) {
      send(tail);
      res.end();
      huge.done = true;
    }
  };
  send(head);
  pump();
}

const server = createServer((req, res) => {
  if (req.method === 'GET') {
    if (req.url === '/stats') {
      res.end(JSON.stringify({ streams, events, eventBytes, huge }));
      return;
    }
    flood(res);
    return;
  }
  if (req.method === 'DELETE') {
    res.writeHead(200).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let msg;
    try {
      msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (msg.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    if (msg.method === 'initialize') return json(res, msg.id, INIT, { 'mcp-session-id': `s-${process.pid}-${++sessions}` });
    if ((msg.method === 'tools/call' && msg.params?.name === 'huge') || (msg.method === 'resources/read' && msg.params?.uri === 'huge')) return hugeAnswer(res, msg.id, msg.method);
    json(res, msg.id, '{}');
  });
});

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
