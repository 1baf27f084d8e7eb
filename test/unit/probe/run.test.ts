/** probeUpstreams: report order, headers, skipped entries, and how failures are explained. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { explain, probeUpstreams } from '../../../src/probe/run.js';
import { RetrofitError } from '../../../src/errors.js';
import { FIXTURE_SERVER } from '../../helpers/stdio-gateway.js';
import { startV1Server } from '../../helpers/v1-server.js';
import { load } from '../config/helpers.js';

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
}

function paged(): McpServer {
  const server = new McpServer({ name: 'paged', version: '2.0.0' }, { capabilities: { tools: {} } });
  server.server.setRequestHandler(ListToolsRequestSchema, (req) =>
    (req.params?.cursor === undefined
      ? { tools: [{ name: 'one', inputSchema: {} }, 'junk'], nextCursor: 'next' }
      : { tools: [{ name: 'two', inputSchema: { type: 'object' } }] }) as never,
  );
  return server;
}

describe('probeUpstreams', () => {
  it('reports upstreams in file order, with pages counted and skipped entries warned about', async () => {
    const http = await startV1Server({ build: paged });
    const { loaded } = await load(
      `upstreams:
  kid:
    command: ${JSON.stringify(process.execPath)}
    args: [${JSON.stringify(FIXTURE_SERVER)}]
  web:
    url: ${http.url}
    tools:
      two: { outputSchema: { type: object } }
`,
    );
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const out = collect(stdout);
    const err = collect(stderr);
    expect(await probeUpstreams(loaded, { stdout, stderr }, { timeoutMs: 20_000 })).toBe(0);
    const lines = out().split('\n').filter(Boolean);
    const web = lines.findIndex((l) => /^web: 2 tools in 2 pages \(http, server paged 2\.0\.0, revision \d{4}-\d{2}-\d{2}\)$/.test(l));
    expect(lines[0]).toMatch(/^kid: \d+ tools \(stdio, server stdio-fixture 1\.0\.0, revision 2025-11-25\)$/);
    expect(web).toBeGreaterThan(0);
    expect(lines[web + 1]).toMatch(/^ {2}served at: 2026-07-28 \(by the upstream if it answers server\/discover, else on pooled sessions, up to 4\), /);
    expect(lines.slice(web + 2)).toEqual(['web/one: repair input_type_added (root type "object" added)', 'web/two: outputSchema inline, extract auto', 'probe: 2 of 2 upstreams answered']);
    expect(err()).toBe('probe: warning: web: 1 tools/list entry without a string name was skipped\n');
  });
});

describe('explain', () => {
  it('joins the cause chain, each message once', () => {
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const fetchFailed = new TypeError('fetch failed', { cause: refused });
    const err = new RetrofitError('RETROFIT_ERR_UPSTREAM_UNREACHABLE', ['a'], { cause: new Error('url http://x/mcp: fetch failed', { cause: fetchFailed }) });
    expect(explain(err)).toBe('upstream "a" is unreachable: url http://x/mcp: fetch failed: connect ECONNREFUSED 127.0.0.1:1');
    expect(explain('plain')).toBe('plain');
  });
});
