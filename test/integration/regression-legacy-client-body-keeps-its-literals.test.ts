/**
 * A legacy HTTP+SSE client's POST goes to a legacy upstream as the client sent it, except when the gateway must
 * write it again: traced (each request's span context added to its `_meta`), or less a message that may not
 * reach the upstream (a cancellation of the pending initialize). Both wrote the body from its parsed messages,
 * so every number literal a double cannot hold arrived rounded (`"n": 12345678901234567890` as
 * 12345678901234567000, `1e400` as null). A raw legacy upstream records the text of each POST it receives.
 */
import { request, type IncomingMessage } from 'node:http';
import { expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startOtlpReceiver } from '../helpers/otlp-receiver.js';
import { rawLegacyUpstream } from '../helpers/raw-legacy.js';

const ARGS = '{"n":12345678901234567890,"x":1e400,"y":0.1000000000000000055511151231257827}';
const INITIALIZE = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"legacy","version":"1"}}}';

/** A legacy upstream that records the text of every POST and answers initialize only when told. */
async function legacyUpstream(): Promise<{ url: string; got: string[]; answerInitialize: () => void }> {
  const got: string[] = [];
  const up = await rawLegacyUpstream((_body, res, _up, text) => {
    res.writeHead(202).end();
    got.push(text);
  });
  return { url: up.url, got, answerInitialize: () => up.initialized(0) };
}

/** A legacy client's event stream on the gateway: the POST endpoint it announces, and a wait for the first message event. */
async function openStream(url: string): Promise<{ endpoint: string; answered: Promise<void> }> {
  const res = await new Promise<IncomingMessage>((resolve, reject) => request(url, { headers: { accept: 'text/event-stream' } }, resolve).on('error', reject).end());
  onTestFinished(() => void res.destroy());
  let buffered = '';
  let endpoint: ((path: string) => void) | undefined;
  let answered: (() => void) | undefined;
  const endpointFound = new Promise<string>((resolve) => (endpoint = resolve));
  const answer = new Promise<void>((resolve) => (answered = resolve));
  res.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const path = /^event: endpoint\ndata: (.*)$/m.exec(buffered)?.[1];
    if (path !== undefined) endpoint!(new URL(path, url).toString());
    if (/^event: message$/m.test(buffered)) answered!();
  });
  return { endpoint: await endpointFound, answered: answer };
}

const postTo = async (url: string, body: string): Promise<number> => (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status;

it("a legacy client's traced request reaches the upstream with its trace context and the client's number literals", async () => {
  const up = await legacyUpstream();
  const receiver = await startOtlpReceiver();
  const gw = await startGateway(gatewayConfig([sseUpstream('legacy', up.url, { timeoutMs: 10_000 })], { telemetry: { endpoint: receiver.endpoint, protocol: 'http/json' } }));
  const stream = await openStream(gw.url('/legacy/mcp'));
  expect(await postTo(stream.endpoint, INITIALIZE)).toBe(202);
  up.answerInitialize();
  await stream.answered;
  expect(await postTo(stream.endpoint, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${ARGS}}}`)).toBe(202);
  const got = up.got.at(-1)!;
  expect(got).toContain('"traceparent"');
  expect(got).toContain(`"arguments":${ARGS}`);
});

it("the rest of a legacy client's batch, less a withheld cancellation, reaches the upstream with the client's number literals", async () => {
  const up = await legacyUpstream();
  const gw = await startGateway(gatewayConfig([sseUpstream('legacy', up.url, { timeoutMs: 10_000 })]));
  const stream = await openStream(gw.url('/legacy/mcp'));
  expect(await postTo(stream.endpoint, INITIALIZE)).toBe(202);
  const cancel = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":0,"reason":"impatient"}}';
  const progress = `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1,"_meta":${ARGS}}}`;
  expect(await postTo(stream.endpoint, `[${cancel},${progress}]`)).toBe(202);
  // The POST was answered once the upstream took what was sent: the batch less the cancellation.
  expect(up.got.at(-1)).toBe(`[${progress}]`);
});
