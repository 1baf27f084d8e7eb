/**
 * A session the gateway holds (a stdio child) sent each message of a client's batch upstream written again from
 * its parsed form (JSON.stringify), and so did a traced request (its span's context added to `_meta`): every
 * number literal a double cannot hold arrived rounded (`"n": 12345678901234567890` as 12345678901234567000,
 * `1e400` as null). Each message now goes as the client wrote it (its own slice of the batch), a traced one
 * written again with the client's literals kept. A raw child answers each call with the line it read.
 */
import { afterEach, expect, it } from 'vitest';
import { RAW_INIT_RESULT, rawArgs } from '../helpers/raw-child.js';
import { startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { connectV1Client } from '../helpers/v1-client.js';

/** The arguments as the client writes them; a double holds neither literal. */
const ARGS = '{"n":12345678901234567890,"x":1e400,"y":0.1000000000000000055511151231257827}';
/** ARGS as it stands JSON-escaped inside the child's text. */
const ECHOED = `\\"arguments\\":${ARGS.replaceAll('"', '\\"')}`;

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

let gw: StdioGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/** POST `body` on the session of a v1 client, the answer's text. */
async function posted(body: string): Promise<string> {
  const { client, transport } = await connectV1Client(gw!.url);
  await client.listTools();
  const res = await fetch(gw!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-06-18' },
    body,
  });
  return res.text();
}

const call = (id: number): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":${ARGS}}}`;

it("each message of a client's batch reaches a held session's child with the client's number literals", async () => {
  gw = await startStdioGateway({ args: rawArgs(echo) });
  const text = await posted(`[ ${call(7)} ,\n${call(8)} ]`);
  // Both answers, each echoing its own line: the arguments exactly as the client wrote them.
  expect(text).toContain('"id":7');
  expect(text).toContain('"id":8');
  expect(text.split(ECHOED)).toHaveLength(3);
});

it('a traced request (alone or in a batch) reaches the child with its trace context and the client\'s number literals', async () => {
  const receiver = await startOtlpReceiver();
  gw = await startStdioGateway({ args: rawArgs(echo), config: { telemetry: { endpoint: receiver.endpoint, protocol: 'http/json' } } });
  for (const body of [call(7), `[${call(8)},${call(9)}]`]) {
    const text = await posted(body);
    // The span's context went upstream in `_meta`: the message was written again.
    expect(text, body).toContain('traceparent');
    expect(text.split(ECHOED), body).toHaveLength(body.startsWith('[') ? 3 : 2);
  }
});
