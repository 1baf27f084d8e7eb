/**
 * A shared stdio child's batch line is split into its messages, each written again with the session's own id
 * restored (src/upstream/shared-ids.ts on the event loop; src/pipeline/offload/demux.ts on a worker for a long
 * line): parsed with JSON.parse and written with JSON.stringify, so every number literal a double cannot hold
 * went out rounded (`"_meta": {"n": 12345678901234567890}` as 12345678901234567000). A raw child answers with a
 * batch written by hand; a raw client reads the gateway's bytes. The other way, each request a session sends the
 * child is written again with its id remapped: a tool's 64-bit argument reached the child rounded.
 */
import { afterEach, expect, it } from 'vitest';
import { OFFLOAD_BYTES } from '../../src/pipeline/offload/plan.js';
import { RAW_INIT_RESULT, rawArgs, rawChild } from '../helpers/raw-child.js';
import { startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';
import { connectV1Client } from '../helpers/v1-client.js';

const META = '{"n":12345678901234567890,"x":0.1000000000000000055511151231257827}';
const STRUCTURED = '{"v":9007199254740993,"big":1e400}';

/** Each answer is a batch of one; `long`'s line is past OFFLOAD_BYTES (bytes, sorted out on the worker). */
const child = rawChild(`(m, out) => {
  if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'short', inputSchema: { type: 'object' } }, { name: 'long', inputSchema: { type: 'object' } }] } });
  const text = m.params.name === 'long' ? 'x'.repeat(${OFFLOAD_BYTES + 1000}) : 'ok';
  out('[{"jsonrpc":"2.0","id":' + JSON.stringify(m.id) + ',"result":{"content":[{"type":"text","text":"' + text + '"}],"structuredContent":${STRUCTURED},"total":18446744073709551617,"_meta":${META}}}]');
}`);

let gw: StdioGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

it("a shared child's batch keeps its number literals a double cannot hold, on the event loop and on the worker", async () => {
  gw = await startStdioGateway({ args: rawArgs(child), upstream: { share: true } });
  const { client, transport } = await connectV1Client(gw.url);
  await client.listTools();

  let id = 100;
  const raw = async (name: string): Promise<string> => {
    const res = await fetch(gw!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: {} } }),
    });
    return res.text();
  };

  for (const name of ['short', 'long']) {
    const text = await raw(name);
    // The session's own id, restored from the wire id.
    expect(text, name).toContain(`"id":${id}`);
    expect(text, name).toContain(`"structuredContent":${STRUCTURED}`);
    expect(text, name).toContain(`"_meta":${META}`);
    expect(text, name).toContain('"total":18446744073709551617');
  }
  expect(gw.logs.filter((l) => l.msg === 'share mode: a long line sorted out on a worker')).toHaveLength(1);
});

/** A child that answers each call with the line it received, as its text. */
const echo = `
  const out = (v) => process.stdout.write(JSON.stringify(v) + '\\n');
  require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.id === undefined) return;
    if (m.method === 'initialize') return out({ jsonrpc: '2.0', id: m.id, result: ${JSON.stringify(RAW_INIT_RESULT)} });
    if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] } });
    out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: line }] } });
  });`;

it('a request reaches a shared child with the number literals a double cannot hold as the client wrote them', async () => {
  gw = await startStdioGateway({ args: rawArgs(echo), upstream: { share: true } });
  const { client, transport } = await connectV1Client(gw.url);
  await client.listTools();
  const res = await fetch(gw.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-06-18' },
    body: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"n":12345678901234567890,"x":0.1000000000000000055511151231257827}}}',
  });
  const text = await res.text();
  // The child's text is the line it read, JSON-escaped in the answer.
  expect(text).toContain('\\"arguments\\":{\\"n\\":12345678901234567890,\\"x\\":0.1000000000000000055511151231257827}');
});
