/**
 * Regression: an upstream that answers with bytes that are not HTTP (garbage, a status below 100, a negative
 * Content-Length, a chunk size past 2^64, a control character in a header) got 500 RETROFIT_ERR_INTERNAL,
 * logged as the gateway's own fault and not counted against the upstream: undici's parser errors carry no
 * error code, and its parser asserts on a status below 100. Now each is 502 RETROFIT_ERR_UPSTREAM_PROTOCOL,
 * counted as the upstream's protocol failure, its cause kept.
 */
import { createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';

const ANSWER = '{"jsonrpc":"2.0","id":1,"result":{"content":[]}}';

const CASES: Record<string, string> = {
  'not HTTP at all': 'SSH-2.0-OpenSSH_9.6\r\n\r\n',
  'status 099': `HTTP/1.1 099 Early\r\nContent-Type: application/json\r\nContent-Length: ${ANSWER.length}\r\n\r\n${ANSWER}`,
  'a negative Content-Length': `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n${ANSWER}`,
  'a chunk size past 2^64': 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff\r\n{"a":1}',
  'a control character in a header': `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: a\u0001b\r\nContent-Length: ${ANSWER.length}\r\n\r\n${ANSWER}`,
};

/** A TCP server that answers every request's first bytes with `reply`, then leaves the socket open. */
async function rawUpstream(reply: string): Promise<string> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', () => socket.write(reply));
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  onTestFinished(async () => {
    for (const s of sockets) s.destroy();
    server.close();
    await once(server, 'close');
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}/mcp`;
}

describe('regression: an upstream whose answer is not HTTP', () => {
  for (const [name, reply] of Object.entries(CASES)) {
    it(`${name}: 502 RETROFIT_ERR_UPSTREAM_PROTOCOL, counted as the upstream's protocol failure`, async () => {
      const gw = await startGateway(gatewayConfig([httpUpstream('remote', await rawUpstream(reply))]));
      const answer = await fetch(gw.url('/remote/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {} } }),
      });
      expect(answer.status).toBe(502);
      expect(await answer.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } } });
      expect((await gw.metrics.upstreamErrors.get()).values).toMatchObject([{ labels: { upstream: 'remote', kind: 'protocol' }, value: 1 }]);
    });
  }
});
