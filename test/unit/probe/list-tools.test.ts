/**
 * listUpstreamTools against real upstreams: SDK servers over Streamable HTTP and legacy SSE, real child
 * processes over stdio, and raw sockets for the failures (refused, silent, malformed).
 */
import { createServer, type Server } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_LIMITS, STATELESS_DEFAULTS, type UpstreamConfig } from '../../../src/config/types.js';
import { RetrofitError } from '../../../src/errors.js';
import { listUpstreamTools } from '../../../src/probe/list-tools.js';
import { startEverythingSse } from '../../helpers/everything-sse.js';
import { FIXTURE_SERVER } from '../../helpers/stdio-gateway.js';
import { listen } from '../../helpers/listen.js';
import { startV1Server } from '../../helpers/v1-server.js';

const CONFIG = { file: '/tmp/gw.yaml', secrets: ['licence-key-5ecret'], limits: { ...DEFAULT_LIMITS, maxRequestBytes: 1 << 20, maxResultBytes: 1 << 20 } };
const common = { path: '/x/mcp', timeoutMs: 60_000, tools: {}, bridge: true, idleTimeoutMs: 900_000, maxSessions: 32, stateless: STATELESS_DEFAULTS };
const http = (url: string, headers: Record<string, string> = {}): UpstreamConfig => ({ ...common, name: 'h', kind: 'http', url, headers });
const stdio = (command: string, args: string[]): UpstreamConfig => ({ ...common, name: 's', kind: 'stdio', command, args, env: {}, share: false, stderr: 'debug' });

/** An SDK server whose tools/list is answered by `handler` (raw result, not validated by the SDK). */
function rawList(handler: (cursor: string | undefined, headers: Record<string, unknown>) => Record<string, unknown>): () => McpServer {
  return () => {
    const server = new McpServer({ name: 'raw', version: '9.9.9' }, { capabilities: { tools: {} } });
    server.server.setRequestHandler(ListToolsRequestSchema, (req, extra) => handler(req.params?.cursor, extra.requestInfo?.headers ?? {}) as never);
    return server;
  };
}

async function failure(promise: Promise<unknown>): Promise<RetrofitError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(RetrofitError);
  return err as RetrofitError;
}

describe('listUpstreamTools', () => {
  it('follows nextCursor across pages, keeps broken definitions as listed, and sends the configured headers', async () => {
    const seen: unknown[] = [];
    const pages: Record<string, { tools: unknown[]; nextCursor?: string }> = {
      '': { tools: [{ name: 'a', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } }], nextCursor: 'p2' },
      p2: { tools: [{ name: 'b', inputSchema: { type: 'object' } }, 42, { inputSchema: {} }], nextCursor: 'p3' },
      p3: { tools: [{ name: 'c', inputSchema: { type: 'object' }, outputSchema: { type: 'nope' } }] },
    };
    const server = await startV1Server({
      jsonResponse: true,
      build: rawList((cursor, headers) => {
        seen.push(headers['x-probe']);
        return pages[cursor ?? ''] ?? { tools: [] };
      }),
    });
    const listed = await listUpstreamTools(http(server.url, { 'X-Probe': 'yes' }), CONFIG, { timeoutMs: 10_000 });
    expect(listed.tools.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(listed.tools[0]).toEqual({ name: 'a', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } });
    expect(listed.pages).toBe(3);
    expect(listed.malformed).toBe(2);
    expect(listed.server).toEqual({ name: 'raw', version: '9.9.9' });
    expect(seen).toEqual(['yes', 'yes', 'yes']);
  });

  it('a cursor that comes back again is a protocol error, not an endless loop', async () => {
    const server = await startV1Server({ build: rawList(() => ({ tools: [{ name: 'a', inputSchema: { type: 'object' } }], nextCursor: 'again' })) });
    const err = await failure(listUpstreamTools(http(server.url), CONFIG, { timeoutMs: 10_000 }));
    expect(err.code).toBe('RETROFIT_ERR_UPSTREAM_PROTOCOL');
    expect(String((err.cause as Error).message)).toMatch(/"again" was already sent/);
  });

  it('a result without a tools array is a protocol error', async () => {
    const server = await startV1Server({ build: rawList(() => ({ items: [] })) });
    const err = await failure(listUpstreamTools(http(server.url), CONFIG, { timeoutMs: 10_000 }));
    expect(err.code).toBe('RETROFIT_ERR_UPSTREAM_PROTOCOL');
    expect((err.cause as Error).message).toBe('tools/list result has no "tools" array');
  });

  it('lists a legacy HTTP+SSE upstream', async () => {
    const sse = await startEverythingSse();
    onTestFinished(() => sse.close());
    const upstream: UpstreamConfig = { ...common, name: 'legacy', kind: 'sse', sse: sse.url, headers: {} };
    const listed = await listUpstreamTools(upstream, CONFIG, { timeoutMs: 20_000 });
    expect(listed.tools.map((t) => t.name)).toContain('echo');
  });

  it('lists a stdio upstream (a real child process)', async () => {
    const listed = await listUpstreamTools(stdio(process.execPath, [FIXTURE_SERVER]), CONFIG, { timeoutMs: 20_000 });
    expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['pid', 'echo']));
    expect(listed.server?.name).toBe('stdio-fixture');
  });

  it('a refused connection is unreachable, with the cause', async () => {
    // Bind, learn the port, close: nothing listens there any more.
    const probe: Server = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as { port: number };
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const err = await failure(listUpstreamTools(http(`http://127.0.0.1:${port}/mcp`), CONFIG, { timeoutMs: 10_000 }));
    expect(err.code).toBe('RETROFIT_ERR_UPSTREAM_UNREACHABLE');
    expect(err.message).toBe('upstream "h" is unreachable');
    expect((err.cause as Error).message).toMatch(new RegExp(`^url http://127\\.0\\.0\\.1:${port}/mcp: `));
  });

  it('an upstream that never answers hits the deadline', async () => {
    const silent = await listen(() => {
      // accept the request, never respond
    });
    const err = await failure(listUpstreamTools(http(`${silent.origin}/mcp`), CONFIG, { timeoutMs: 300 }));
    expect(err.code).toBe('RETROFIT_ERR_UPSTREAM_TIMEOUT');
    expect(err.message).toBe('upstream "h" did not answer within 300ms');
  });

  it('an answer that never ends is cut at limits.maxResultBytes, long before the deadline, with memory bounded (review finding)', async () => {
    // An endless JSON body: the SDK reads a JSON answer whole, so the probe used to grow ~200 MB/s to its deadline.
    const endless = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      const more = (): void => {
        while (res.write(chunk));
      };
      res.on('drain', more);
      res.write('{"jsonrpc":"2.0","id":0,"result":{"x":"');
      more();
    });
    const started = Date.now();
    const err = await failure(listUpstreamTools(http(`${endless.origin}/mcp`), CONFIG, { timeoutMs: 60_000 }));
    expect(err.code).toBe('RETROFIT_ERR_UPSTREAM_UNREACHABLE');
    expect((err.cause as Error).message).toContain(`is larger than limits.maxResultBytes (${CONFIG.limits.maxResultBytes} bytes)`);
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('a command that cannot be spawned is unreachable', async () => {
    const err = await failure(listUpstreamTools(stdio('retrofit-no-such-command', []), CONFIG, { timeoutMs: 10_000 }));
    expect(err.code).toBe('RETROFIT_ERR_UPSTREAM_UNREACHABLE');
    expect((err.cause as Error).message).toMatch(/^command retrofit-no-such-command: .*ENOENT/);
  });

  it('a child that exits at once is unreachable, and what it wrote to stderr is kept', async () => {
    const err = await failure(listUpstreamTools(stdio(process.execPath, ['-e', 'console.error("no such directory: /data"); process.exit(3)']), CONFIG, { timeoutMs: 10_000 }));
    expect(err.code).toBe('RETROFIT_ERR_UPSTREAM_UNREACHABLE');
    expect((err.cause as Error).message).toBe(`command ${process.execPath}: exited during initialize (code 3); stderr: no such directory: /data`);
  });

  it('shows the message lines of a stack trace, not its frames, and scrubs configured secrets from them', async () => {
    const crash = 'console.error("starting"); throw new Error("bad key licence-key-5ecret")';
    const err = await failure(listUpstreamTools(stdio(process.execPath, ['-e', crash]), CONFIG, { timeoutMs: 10_000 }));
    const message = (err.cause as Error).message;
    expect(message).toMatch(/exited during initialize \(code 1\); stderr: .*Error: bad key \[Redacted\]/);
    expect(message).not.toMatch(/ at /);
    expect(message).not.toContain('licence-key-5ecret');
  });

  it('a child that hangs hits the deadline, and what it wrote to stderr is kept', async () => {
    const hang = 'console.error("waiting for a licence key"); process.stdin.resume()';
    const err = await failure(listUpstreamTools(stdio(process.execPath, ['-e', hang]), CONFIG, { timeoutMs: 3_000 }));
    expect(err.code).toBe('RETROFIT_ERR_UPSTREAM_TIMEOUT');
    expect((err.cause as Error).message).toBe('stderr: waiting for a licence key');
  });

  it('a child that hangs on a prompt without a newline still shows it', async () => {
    const hang = 'process.stderr.write("Password: "); process.stdin.resume()';
    const err = await failure(listUpstreamTools(stdio(process.execPath, ['-e', hang]), CONFIG, { timeoutMs: 1_000 }));
    expect(err.code).toBe('RETROFIT_ERR_UPSTREAM_TIMEOUT');
    expect((err.cause as Error).message).toBe('stderr: Password:');
  });
});
