import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

// Tricky framing: priming event, comments, event:, retry:, multi-line data, \r\n and \r line ends, and a
// response to the POSTed request (so the gateway parses events for it) — written in awkward chunks.
const CHUNKS = [
  'id: prime-0\r\ndata:\r\n\r',
  '\n: a comment\n\nretry: 2500\nevent: message\nid: 1\ndata: {"jsonrpc":"2.0","method":"notifications/progress",',
  '"params":{"progressToken":1,"progress":1}}\n\n',
  'data: line one\rdata: line two\r\r',
  'id: 2\ndata: {"jsonrpc":"2.0",\ndata: "id":7,"result":{"content":[{"type":"text","text":"é ✓"}]}}\n',
  '\n: trailing keep-alive\n\n',
];
const EXPECTED = Buffer.from(CHUNKS.join(''));

describe('SSE framing through the gateway', () => {
  it('is byte-exact, for GET streams and POST responses awaiting rewrite', async () => {
    const upstream = await listen((req, res) => {
      void readBody(req).then(async () => {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
        for (const chunk of CHUNKS) {
          // Each chunk leaves separately; waiting for the write callback keeps them apart on the wire.
          await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
        }
        res.end();
      });
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('raw', `${upstream.origin}/mcp`)]));

    const post = (url: string): Promise<Response> =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 's1' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 't', arguments: {} } }),
      });
    const direct = Buffer.from(await (await post(`${upstream.origin}/mcp`)).arrayBuffer());
    const proxied = await post(gw.url('/raw/mcp'));
    expect(proxied.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(proxied.headers.get('cache-control')).toBe('no-cache');
    const viaGateway = Buffer.from(await proxied.arrayBuffer());
    expect(direct.equals(EXPECTED)).toBe(true);
    expect(viaGateway.toString('latin1')).toBe(EXPECTED.toString('latin1'));

    const get = await fetch(gw.url('/raw/mcp'), { headers: { accept: 'text/event-stream', 'mcp-session-id': 's1' } });
    expect(Buffer.from(await get.arrayBuffer()).equals(EXPECTED)).toBe(true);
  });

  it('forwards each event as it arrives instead of buffering the stream', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const upstream = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('id: 1\ndata: first\n\n');
      // The second event is only written once the client has seen the first one through the gateway.
      void released.then(() => res.end('id: 2\ndata: second\n\n'));
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('raw', `${upstream.origin}/mcp`)]));
    const res = await fetch(gw.url('/raw/mcp'), { headers: { accept: 'text/event-stream' } });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(Buffer.from(first.value!).toString()).toBe('id: 1\ndata: first\n\n');
    release();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
    expect(rest).toBe('id: 2\ndata: second\n\n');
  });
});
