/**
 * A minimal MCP upstream on raw node:http, run in its own process: canned JSON-RPC answers so the bench
 * measures the proxy, not the server. Paths: /json/mcp answers tools/call with JSON, /sse/mcp with a one-event
 * SSE stream. Tools: `echo` (small result), `typed` (the same result with its structuredContent, as a server
 * that types its own output answers), `big` (a ~10 MB JSON text), `xs` (a text of 40 `x`s, the worst case of
 * the catastrophic pattern in scenario 2c), `progress` (an SSE progress notification stamped with its emit
 * time, then the result PROGRESS_DELAY_MS later). initialize hands out a
 * session id; GET opens an SSE stream that stays open (an idle session's server stream); DELETE ends it.
 * Prints `listening http://127.0.0.1:PORT`.
 */
import { performance } from 'node:perf_hooks';
import { createServer } from 'node:http';
import { objectValue, SMALL_TEXT } from '../lib/data.js';

const PROGRESS_DELAY_MS = Number(process.env.PROGRESS_DELAY_MS ?? 200);
const SMALL = JSON.stringify({ content: [{ type: 'text', text: SMALL_TEXT }] });
// The same result as a modern server types it itself: the text and its structuredContent.
const TYPED = JSON.stringify({ content: [{ type: 'text', text: SMALL_TEXT }], structuredContent: JSON.parse(SMALL_TEXT) });
// Built on first use: most runs never ask for it, and it costs a second at startup.
let big;
const BIG = () => (big ??= JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(objectValue(10 * 1024 * 1024)) }] }));
const XS = JSON.stringify({ content: [{ type: 'text', text: 'x'.repeat(40) }] });
const INIT = JSON.stringify({ protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'raw-upstream', version: '1.0.0' } });
let sessions = 0;
let openStreams = 0;

const now = () => performance.timeOrigin + performance.now();

function answer(res, sse, id, resultJson, headers = {}) {
  const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
  if (sse) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
    res.end(`event: message\ndata: ${body}\n\n`);
  } else {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers });
    res.end(body);
  }
}

function progress(res, id, token) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const note = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token ?? 1, progress: 1, total: 2, message: `emitted ${now()}` } };
  res.write(`event: message\ndata: ${JSON.stringify(note)}\n\n`);
  const timer = setTimeout(() => {
    res.end(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${SMALL}}\n\n`);
  }, PROGRESS_DELAY_MS);
  res.once('close', () => clearTimeout(timer));
}

const server = createServer((req, res) => {
  const sse = req.url.startsWith('/sse');
  if (req.method === 'GET') {
    if (req.url === '/stats') {
      res.end(JSON.stringify({ sessions, openStreams }));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    openStreams++;
    res.once('close', () => openStreams--);
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
    if (msg.method === 'initialize') {
      answer(res, false, msg.id, INIT, { 'mcp-session-id': `s-${process.pid}-${++sessions}` });
      return;
    }
    if (msg.method === 'tools/call') {
      const name = msg.params?.name;
      if (name === 'progress') return progress(res, msg.id, msg.params?._meta?.progressToken);
      answer(res, sse, msg.id, name === 'big' ? BIG() : name === 'xs' ? XS : name === 'typed' ? TYPED : SMALL);
      return;
    }
    answer(res, sse, msg.id, '{}');
  });
});

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
