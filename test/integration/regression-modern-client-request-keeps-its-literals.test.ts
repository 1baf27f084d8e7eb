/**
 * A 2026-07-28 client in front of an upstream of session revisions (a stdio child, on a pooled session) has its
 * request written again for the upstream (the session's id, the `_meta` envelope gone: src/http/front/modern.ts)
 * and its answers to what the upstream asked it (`inputResponses` of a retry) turned into responses
 * (src/http/front/modern-exchange.ts): both with JSON.stringify, so every number literal a double cannot hold
 * arrived rounded (`"n": 12345678901234567890` as 12345678901234567000, `1e400` as null). A raw child answers
 * each call with the line it read; one asks the client first, and answers with the response line it got.
 */
import { afterEach, expect, it } from 'vitest';
import { RAW_INIT_RESULT, rawArgs } from '../helpers/raw-child.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';

const MODERN = '2026-07-28';
const ARGS = '{"n":12345678901234567890,"x":1e400,"y":0.1000000000000000055511151231257827}';
/** `text` as it stands JSON-escaped inside the child's text. */
const escaped = (text: string): string => text.replaceAll('"', '\\"');

/** Answers `echo` with the line it read; `ask` asks the client first (elicitation), then answers with its response's line. */
const child = `
  const out = (v) => process.stdout.write(JSON.stringify(v) + '\\n');
  let asking;
  require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.id === 'e1' && m.method === undefined) return out({ jsonrpc: '2.0', id: asking, result: { content: [{ type: 'text', text: line }] } });
    if (m.id === undefined) return;
    if (m.method === 'initialize') return out({ jsonrpc: '2.0', id: m.id, result: ${JSON.stringify(RAW_INIT_RESULT)} });
    if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'echo', inputSchema: { type: 'object' } }, { name: 'ask', inputSchema: { type: 'object' } }] } });
    if (m.params.name === 'ask') {
      asking = m.id;
      return out({ jsonrpc: '2.0', id: 'e1', method: 'elicitation/create', params: { message: 'n?', requestedSchema: { type: 'object', properties: { n: { type: 'integer' } } } } });
    }
    out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: line }] } });
  });`;

let gw: StdioGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const META = `{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}}`;

/** A 2026-07-28 tools/call of `name`, its params' other members as JSON text (`rest`), the answer's text. */
async function call(name: string, rest: string): Promise<string> {
  const res = await fetch(gw!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
    body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}",${rest},"_meta":${META}}}`,
  });
  return res.text();
}

it("a 2026-07-28 client's request reaches an upstream of session revisions with the client's number literals", async () => {
  gw = await startStdioGateway({ args: rawArgs(child) });
  const text = await call('echo', `"arguments":${ARGS}`);
  expect(text).toContain('"resultType":"complete"');
  expect(text).toContain(escaped(`"arguments":${ARGS}`));
});

it("a traced 2026-07-28 client's request reaches the upstream with its trace context and the client's number literals", async () => {
  const receiver = await startOtlpReceiver();
  gw = await startStdioGateway({ args: rawArgs(child), config: { telemetry: { endpoint: receiver.endpoint, protocol: 'http/json' } } });
  const text = await call('echo', `"arguments":${ARGS}`);
  expect(text).toContain(escaped('"traceparent"'));
  expect(text).toContain(escaped(`"arguments":${ARGS}`));
});

it("a 2026-07-28 client's answer to what the upstream asked reaches it with the client's number literals", async () => {
  gw = await startStdioGateway({ args: rawArgs(child) });
  const asked = JSON.parse(await call('ask', '"arguments":{}')) as { result: { resultType: string; inputRequests: Record<string, { method: string }>; requestState: string } };
  expect(asked.result.resultType).toBe('input_required');
  const [key, request] = Object.entries(asked.result.inputRequests)[0]!;
  expect(request.method).toBe('elicitation/create');
  const content = '{"n":12345678901234567890,"big":1e400}';
  const text = await call('ask', `"arguments":{},"inputResponses":{"${key}":{"action":"accept","content":${content}}},"requestState":"${asked.result.requestState}"`);
  expect(text).toContain('"resultType":"complete"');
  // The child's text is the response line it read: the client's content as the client wrote it.
  expect(text).toContain(escaped(`"result":{"action":"accept","content":${content}}`));
});
