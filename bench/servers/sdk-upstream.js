/**
 * A real v1 SDK MCP server (McpServer + StreamableHTTPServerTransport), stateless and in JSON response mode,
 * in its own process: a fresh server and transport per request, as the SDK documents for stateless use.
 * One tool, `echo`, answering the same small JSON text as the raw upstream. Prints `listening URL`.
 */
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SMALL_TEXT } from '../lib/data.js';

function mcpServer() {
  const server = new McpServer({ name: 'sdk-upstream', version: '1.0.0' });
  server.registerTool('echo', { description: 'answers a small JSON report' }, async () => ({ content: [{ type: 'text', text: SMALL_TEXT }] }));
  return server;
}

const http = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    let body;
    try {
      body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
    } catch {
      res.writeHead(400).end();
      return;
    }
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.once('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    } catch (err) {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    }
  });
});

http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${http.address().port}`);
});
process.on('SIGTERM', () => process.exit(0));
