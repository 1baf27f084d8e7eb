/**
 * An answer the gateway rewrites is parsed with JSON.parse and written again: every number literal a double
 * cannot hold, in parts the rewrite never touched, went out changed (`"_meta": {"n": 12345678901234567890}` as
 * 12345678901234567000, `0.1000000000000000055511151231257827` as 0.1, a tool list's `maximum`). A raw HTTP
 * upstream writes such literals into retrofitted tools/call answers (small: rewritten on the event loop; large:
 * on the worker from its bytes; YAML: on the isolated worker from the parsed result), into a tool's native
 * structuredContent the gateway projects for an older client, and into a listed inputSchema; a raw client reads
 * the gateway's bytes, and a v1 SDK client still gets structuredContent.
 */
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { OFFLOAD_BYTES } from '../../src/pipeline/offload/plan.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { connectV1Client } from '../helpers/v1-client.js';
import { tempFiles } from '../unit/config/helpers.js';

/** Literals JSON.parse cannot give back, as the upstream writes them (in _meta, among other result members). */
const META = '{"n":12345678901234567890,"x":0.1000000000000000055511151231257827,"list":[9007199254740993,-1.00000000000000000001e-5],"big":1e400}';
const ROWS = Array.from({ length: Math.ceil(OFFLOAD_BYTES / 20) }, (_, i) => ({ id: i, name: `row ${i}` }));

/** A tools/call result: `text` as its one text block, META as its _meta, and an inexact member of its own. */
function callResult(text: string): string {
  return `{"content":[{"type":"text","text":${JSON.stringify(text)}}],"total":18446744073709551617,"_meta":${META}}`;
}

/** What the raw upstream answers each method with (JSON text, written by hand: no serialiser rounds it). */
function resultFor(method: string, tool: string | undefined): string {
  if (method === 'initialize') return '{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"literals","version":"1"}}';
  if (method === 'tools/list') {
    const input = '{"type":"object","properties":{"k":{"type":"integer","maximum":12345678901234567890}}}';
    return `{"tools":[{"name":"small","inputSchema":${input}},{"name":"large","inputSchema":${input}},{"name":"yaml","inputSchema":${input}},{"name":"native","inputSchema":{"type":"object"}}]}`;
  }
  if (method !== 'tools/call') return '{}';
  if (tool === 'large') return callResult(JSON.stringify({ rows: ROWS }));
  if (tool === 'yaml') return callResult('rows:\n  - id: 1\n    name: one\n');
  // No configured schema, and no text block: the gateway adds one for a client of this revision.
  if (tool === 'native') return `{"content":[],"structuredContent":{"n":12345678901234567890,"deep":{"x":0.1000000000000000055511151231257827}},"_meta":${META}}`;
  return callResult('{"rows":[{"id":1,"name":"one"}]}');
}

async function literalUpstream(): Promise<string> {
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const m = JSON.parse(body.toString('utf8')) as { id?: number; method: string; params?: { name?: string } };
      if (m.id === undefined) return void res.writeHead(202).end();
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(`{"jsonrpc":"2.0","id":${m.id},"result":${resultFor(m.method, m.params?.name)}}`);
    });
  });
  return `${origin}/mcp`;
}

const SCHEMA = '{ type: object, properties: { rows: { type: array } }, required: [rows] }';

it('a rewritten answer keeps every number literal of the upstream that a double cannot hold, byte for byte', async () => {
  const dir = await tempFiles({
    'gw.yaml': `upstreams:\n  up:\n    url: ${await literalUpstream()}\n    tools:\n      small: { outputSchema: ${SCHEMA} }\n      large: { outputSchema: ${SCHEMA} }\n      yaml: { outputSchema: ${SCHEMA}, extract: { format: yaml } }\n`,
  });
  const gw = await startGateway(await loadConfig(join(dir, 'gw.yaml')));
  const { client, transport } = await connectV1Client(gw.url('/up/mcp'));
  await client.listTools();
  expect((await client.callTool({ name: 'small', arguments: {} })).structuredContent).toEqual({ rows: [{ id: 1, name: 'one' }] });

  let id = 100;
  const raw = async (method: string, params: object): Promise<string> => {
    const res = await fetch(gw.url('/up/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    });
    expect(res.headers.get('content-type')).toContain('application/json');
    return res.text();
  };

  const listed = await raw('tools/list', {});
  expect(listed).toContain('"outputSchema"');
  expect(listed).toContain('"maximum":12345678901234567890');
  expect(listed).not.toContain('12345678901234567000');

  for (const tool of ['small', 'large', 'yaml']) {
    const text = await raw('tools/call', { name: tool, arguments: {} });
    expect(text, tool).toContain('"structuredContent"');
    expect(text, tool).toContain(`"_meta":${META}`);
    expect(text, tool).toContain('"total":18446744073709551617');
    expect(JSON.parse(text).result.structuredContent.rows.length, tool).toBe(tool === 'large' ? ROWS.length : 1);
  }

  const native = await raw('tools/call', { name: 'native', arguments: {} });
  // Projected: the gateway added the text block a client of this revision reads.
  expect((JSON.parse(native) as { result: { content: unknown[] } }).result.content).toHaveLength(1);
  expect(native).toContain('"structuredContent":{"n":12345678901234567890,"deep":{"x":0.1000000000000000055511151231257827}}');
  expect(native).toContain(`"_meta":${META}`);
});
