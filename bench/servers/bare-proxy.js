/**
 * A reference point, not a product: the least a Node.js reverse proxy can do per exchange — node:http in,
 * one keep-alive undici Pool out, the body parsed once (as any MCP-aware proxy must), hop-by-hop headers
 * dropped, the answer streamed back (waiting while the client is behind). No logging, metrics, sessions,
 * cancellation or error mapping. Scenario 1 reports mcp-retrofit against it to show what the features cost on
 * top of the platform's own floor; scenario 8 measures its memory under one 200 MiB event.
 * Usage: node bare-proxy.js <upstream origin>. Prints `listening http://127.0.0.1:PORT`.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { Pool } from 'undici';

const origin = process.argv[2];
const pool = new Pool(origin, { keepAliveTimeout: 10_000 });
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'host']);

const server = createServer((req, res) => {
  const parts = [];
  req.on('data', (chunk) => parts.push(chunk));
  req.on('end', async () => {
    const body = Buffer.concat(parts);
    try {
      if (req.method === 'POST') JSON.parse(body.toString('utf8'));
      const headers = {};
      for (const [k, v] of Object.entries(req.headers)) if (!HOP.has(k)) headers[k] = v;
      const answer = await pool.request({ method: req.method, path: req.url, headers, body: req.method === 'POST' ? body : null });
      const out = {};
      for (const [k, v] of Object.entries(answer.headers)) if (k === 'content-length' || !HOP.has(k)) out[k] = v;
      res.writeHead(answer.statusCode, out);
      // Backpressure as any proxy needs it (scenario 8 streams 200 MiB through it); one boolean per chunk here.
      for await (const chunk of answer.body) if (!res.write(chunk)) await once(res, 'drain');
      res.end();
    } catch {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    }
  });
});

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
