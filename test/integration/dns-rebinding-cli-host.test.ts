/**
 * The Host check follows the address the gateway is really bound to, so `serve --host` overrides `listen.host`
 * for it too: a config saying 0.0.0.0 served with `--host 127.0.0.1` checks Host, and the reverse does not.
 */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { listen, readBody } from '../helpers/listen.js';
import { startServe } from '../helpers/serve.js';

async function upstream(): Promise<string> {
  const up = await listen((req, res) => {
    void readBody(req).then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
  });
  return `${up.origin}/mcp`;
}

async function statusWithHost(address: string, host: string): Promise<number> {
  const port = new URL(address).port;
  const res = await request(`http://127.0.0.1:${port}/up/mcp`, {
    method: 'POST',
    headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  await res.body.dump();
  return res.statusCode;
}

describe('DNS-rebinding protection and serve --host', () => {
  it('checks Host when --host binds loopback although listen.host is 0.0.0.0', async () => {
    const gw = await startServe(`listen: { host: 0.0.0.0 }\nupstreams:\n  up:\n    url: ${await upstream()}\n`, { args: ['--host', '127.0.0.1'] });
    expect(await statusWithHost(gw.origin, 'evil.example.com')).toBe(403);
    expect(await statusWithHost(gw.origin, 'localhost')).toBe(200);
  });

  it('does not check Host when --host binds 0.0.0.0 although listen.host is loopback', async () => {
    const gw = await startServe(`listen: { host: 127.0.0.1 }\nupstreams:\n  up:\n    url: ${await upstream()}\n`, { args: ['--host', '0.0.0.0'] });
    expect(await statusWithHost(gw.origin, 'evil.example.com')).toBe(200);
  });
});
