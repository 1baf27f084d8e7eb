/** allowedHosts and allowedOrigins are applied by a reload, like the other guards (test/integration/ops-guards-after-reload.test.ts). */
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { listen, readBody } from '../helpers/listen.js';
import { startServe } from '../helpers/serve.js';

const config = (url: string, host: string, origin: string): string => `allowedHosts: [${host}]\nallowedOrigins: [${origin}]\nupstreams:\n  up:\n    url: ${url}\n`;

describe('DNS-rebinding protection after a reload', () => {
  it('takes the new allowedHosts and allowedOrigins at once', async () => {
    const up = await listen((req, res) => {
      void readBody(req).then(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
    });
    const gw = await startServe(config(`${up.origin}/mcp`, 'a.example.com', 'https://a.example.com'));
    const status = async (host: string, origin: string): Promise<number> => {
      const res = await request(`${gw.origin}/up/mcp`, {
        method: 'POST',
        headers: { host, origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      });
      await res.body.dump();
      return res.statusCode;
    };
    expect(await status('a.example.com', 'https://a.example.com')).toBe(200);
    expect(await status('b.example.com', 'https://b.example.com')).toBe(403);
    gw.write(config(`${up.origin}/mcp`, 'b.example.com', 'https://b.example.com'));
    expect(await gw.sighup()).toMatchObject({ ok: true, restartRequired: [] });
    expect(await status('b.example.com', 'https://b.example.com')).toBe(200);
    expect(await status('a.example.com', 'https://b.example.com')).toBe(403);
    expect(await status('b.example.com', 'https://a.example.com')).toBe(403);
  });
});
