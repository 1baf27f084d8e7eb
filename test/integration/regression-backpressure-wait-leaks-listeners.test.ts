/**
 * Regression: every backpressure wait of the relay raced `once(res, 'drain')` against `once(res, 'close')`
 * and left the loser's listeners attached, so a long GET stream to a slow client grew with every wait and
 * warned `MaxListenersExceededWarning`. Now the one wait (src/http/write.ts `drained`) removes both listeners
 * whichever fires: any number of waits, no growth, and the client gets every event in order. And one wait
 * at a time: the relay wrote the events it had ready one by one, each write that found the socket full
 * starting a wait of its own (62 at once on one response in bench scenario 7); it writes them all, then
 * waits once.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { request as httpRequest, type ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

const EVENTS = 400;
const PAD = 'p'.repeat(16 * 1024);

describe('regression: a slow reader of a long GET stream', () => {
  it('gets every event, and the gateway warns of no listener growth', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`);
    process.on('warning', onWarning);
    onTestFinished(() => void process.off('warning', onWarning));
    // The gateway runs in this process: its response to the GET, seen through node:http's diagnostics channel.
    const streams: ServerResponse[] = [];
    const onStart = (message: unknown): void => {
      const { request, response } = message as { request: { method?: string; url?: string }; response: ServerResponse };
      if (request.method === 'GET' && request.url === '/remote/mcp') streams.push(response);
    };
    subscribe('http.server.request.start', onStart);
    onTestFinished(() => void unsubscribe('http.server.request.start', onStart));
    let mostWaits = 0;

    const up = await listen((req, res: ServerResponse) => {
      if (req.method !== 'GET') {
        void readBody(req).then(() => res.writeHead(202).end());
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      void (async () => {
        for (let i = 0; i < EVENTS; i++) {
          const event = `event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":{"n":${i},"pad":"${PAD}"}}}\n\n`;
          if (!res.write(event)) await new Promise<void>((resolve) => res.once('drain', () => resolve()));
        }
        res.end();
      })();
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`)]));
    const seen: number[] = [];
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(gw.url('/remote/mcp'), { headers: { accept: 'text/event-stream', 'mcp-session-id': 's' } }, (res) => {
        let buffered = '';
        // A slow reader: one chunk, then a pause until the next turn of the event loop has let the gateway
        // fill the socket again — the gateway waits on backpressure over and over.
        res.on('data', (chunk: Buffer) => {
          for (const s of streams) mostWaits = Math.max(mostWaits, s.listenerCount('drain'));
          buffered += chunk.toString('utf8');
          let end = buffered.indexOf('\n\n');
          while (end !== -1) {
            const match = /"n":(\d+)/.exec(buffered.slice(0, end));
            if (match) seen.push(Number(match[1]));
            buffered = buffered.slice(end + 2);
            end = buffered.indexOf('\n\n');
          }
          res.pause();
          setImmediate(() => res.resume());
        });
        res.on('end', resolve);
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    expect(seen).toEqual(Array.from({ length: EVENTS }, (_, i) => i));
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    expect(streams).toHaveLength(1);
    expect(mostWaits).toBe(1);
  });
});
