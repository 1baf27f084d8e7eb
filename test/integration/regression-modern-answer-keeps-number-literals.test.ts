/**
 * A session-era client in front of a 2026-07-28-only upstream gets each answer reshaped for its revision
 * (src/protocol/modern.ts sessionAnswer): parsed with JSON.parse and written again, so every number literal a
 * double cannot hold went out rounded (`"_meta": {"n": 12345678901234567890}` as 12345678901234567000, a
 * structuredContent's 9007199254740993 as 9007199254740992), on the event loop and, for a large answer, on the
 * worker; the requests made of an `input_required` result's input requests were written from doubles too. A raw
 * 2026-07-28 upstream writes such literals by hand; a raw client reads the gateway's bytes. The other way, the
 * client's call is written again for the upstream (its `_meta` envelope; on a retry, the client's input
 * responses): a 64-bit argument, and a number the client answered an elicitation with, arrived rounded.
 */
import type { ServerResponse } from 'node:http';
import { expect, it } from 'vitest';
import { OFFLOAD_BYTES } from '../../src/pipeline/offload/plan.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startRawModern, type ModernCall } from '../helpers/raw-modern.js';
import { connectV1Client } from '../helpers/v1-client.js';

const META = '{"n":12345678901234567890,"x":0.1000000000000000055511151231257827}';
const STRUCTURED = '{"v":9007199254740993,"big":1e400}';
/** Past OFFLOAD_BYTES: reshaped on the pipeline's worker. */
const LARGE = 'x'.repeat(OFFLOAD_BYTES + 1000);

/** An elicitation's schema with a bound a double cannot hold. */
const REQUESTED = '{"type":"object","properties":{"n":{"type":"integer","maximum":12345678901234567890}}}';
let asked = 0;
/** Each call's text as the upstream received it. */
const received: string[] = [];

/** The answer, JSON text written by hand (no serialiser rounds it), with a text block (nothing to project). */
function answer(m: ModernCall, res: ServerResponse): void {
  received.push(m.text);
  if (m.name === 'ask' && asked++ === 0) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"message":"pick","requestedSchema":${REQUESTED}}}}}}`);
  }
  const text = m.name === 'large' ? LARGE : 'done';
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"resultType":"complete","ttlMs":5,"content":[{"type":"text","text":"${text}"}],"structuredContent":${STRUCTURED},"total":18446744073709551617,"_meta":${META}}}`);
}

it('an answer of a 2026-07-28-only upstream reshaped for a session-era client keeps its number literals, byte for byte', async () => {
  const url = await startRawModern(['small', 'large', 'ask'], answer);
  const gw = await startGateway(gatewayConfig([httpUpstream('modern', url)]));
  const { client, transport } = await connectV1Client(gw.url('/modern/mcp'));
  await client.listTools();

  let id = 100;
  const post = (message: object): Promise<Response> =>
    fetch(gw.url('/modern/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify(message),
    });
  const call = (name: string): Promise<Response> => post({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name, arguments: {} } });
  const exactly = async (body: string): Promise<string> => {
    const res = await fetch(gw.url('/modern/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-06-18' },
      body,
    });
    return res.text();
  };
  const raw = async (name: string): Promise<string> => (await call(name)).text();

  for (const name of ['small', 'large']) {
    const text = await raw(name);
    // Reshaped: the client's id, no 2026-07-28 members.
    expect(text, name).toContain(`"id":${id}`);
    expect(text, name).not.toContain('resultType');
    expect(text, name).toContain(`"structuredContent":${STRUCTURED}`);
    expect(text, name).toContain(`"_meta":${META}`);
    expect(text, name).toContain('"total":18446744073709551617');
  }
  expect(gw.logs.filter((l) => l.msg === 'a large 2026-07-28 answer reshaped on a worker')).toHaveLength(1);

  // input_required: its elicitation reaches the client on the call's stream as the upstream wrote it.
  const stream = (await call('ask')).body!.pipeThrough(new TextDecoderStream()).getReader();
  let seen = '';
  while (!seen.includes('elicitation/create')) {
    const { value, done } = await stream.read();
    if (done) break;
    seen += value;
  }
  expect(seen).toContain(`"params":{"message":"pick","requestedSchema":${REQUESTED}}`);
  const asking = /"id":"([^"]+)","method":"elicitation\/create"/.exec(seen);
  expect(asking).not.toBeNull();
  // Answered (written by hand: a number no double holds), the call goes again with it and completes.
  await exactly(`{"jsonrpc":"2.0","id":"${asking![1]}","result":{"action":"accept","content":{"n":12345678901234567890}}}`);
  for (let chunk = await stream.read(); !chunk.done; chunk = await stream.read()) seen += chunk.value;
  expect(seen).toContain(`"_meta":${META}`);
  expect(received.at(-1)).toContain('"inputResponses":{"q":{"action":"accept","content":{"n":12345678901234567890}}}');

  // A call's own arguments reach the upstream as the client wrote them.
  expect(await exactly('{"jsonrpc":"2.0","id":555,"method":"tools/call","params":{"name":"small","arguments":{"n":12345678901234567890,"x":0.1000000000000000055511151231257827}}}')).toContain(`"_meta":${META}`);
  expect(received.at(-1)).toContain('"arguments":{"n":12345678901234567890,"x":0.1000000000000000055511151231257827}');
});
