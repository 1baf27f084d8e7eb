/**
 * Regression: an `sse:` upstream with `maxResultBytes: 2000` streaming one 64 MiB event — the gateway buffered
 * all of it (+85 MiB RSS) and the client got neither bytes nor the RESULT_TOO_LARGE error the README
 * promises. Now the legacy SSE link splits events with a bound: the over-long event is dropped as it
 * arrives (never held whole), its id is read from its ends, and the request it answers gets
 * RETROFIT_ERR_RESULT_TOO_LARGE on the client's stream; the session keeps working.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';

const MIB = 1024 * 1024;

// A real collection before each sample: what is measured is what is still held, not garbage awaiting GC.
setFlagsFromString('--expose-gc');
// Array buffers freed by a gc are swept on a background thread, which a loaded machine may not have run yet
// when memory is read: sweep on this thread, so a reading after gc() is what is still referenced.
setFlagsFromString('--no-concurrent-array-buffer-sweeping');
const gc = runInNewContext('gc') as () => void;

/** A legacy SSE upstream whose `huge` tool answers with one event of `bytes` bytes, written in 1 MiB chunks. */
async function hugeUpstream(bytes: number, samples: number[]) {
  let stream: import('node:http').ServerResponse | undefined;
  const chunk = Buffer.alloc(MIB, 0x78);
  const up = await listen((req, res) => {
    if (req.method === 'GET') {
      stream = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: endpoint\ndata: /messages?s=1\n\n');
      return;
    }
    void readBody(req).then(async (body) => {
      res.writeHead(202).end();
      const m = JSON.parse(body.toString()) as { id?: number; method: string; params?: { name?: string } };
      if (m.id === undefined || !stream) return;
      if (m.method === 'initialize') {
        stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name: 'huge', version: '1' } } })}\n\n`);
        return;
      }
      if (m.params?.name !== 'huge') {
        stream.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'small' }] } })}\n\n`);
        return;
      }
      // {"result":{"content":[{"type":"text","text":"xxx…"}]},"jsonrpc":"2.0","id":N}: the id last, as the SDKs write it.
      const s = stream;
      const write = (b: Buffer | string): Promise<void> => new Promise((resolve) => (s.write(b) ? resolve() : s.once('drain', () => resolve())));
      await write('event: message\ndata: {"result":{"content":[{"type":"text","text":"');
      for (let sent = 0; sent < bytes; sent += chunk.length) {
        await write(chunk);
        // Every 8 MiB, with the gateway holding whatever it holds of the event so far: collect, then measure.
        if ((sent / MIB) % 8 === 7) {
          gc();
          samples.push(process.memoryUsage().arrayBuffers);
        }
      }
      await write(`"}]},"jsonrpc":"2.0","id":${m.id}}\n\n`);
    });
  });
  return { url: `${up.origin}/sse` };
}

async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end !== -1) {
      yield buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
    }
  }
}

describe('regression: a legacy SSE event far over maxResultBytes', () => {
  it('is never held whole: the request it answers gets RESULT_TOO_LARGE, memory stays bounded, the session goes on', async () => {
    const samples: number[] = [];
    const upstream = await hugeUpstream(64 * MIB, samples);
    const gw = await startGateway(gatewayConfig([sseUpstream('big', upstream.url, { timeoutMs: 30_000 })], { limits: { ...DEFAULT_LIMITS, maxRequestBytes: MIB, maxResultBytes: 2000 } }));
    const controller = new AbortController();
    const res = await fetch(gw.url('/big/mcp'), { headers: { accept: 'text/event-stream' }, signal: controller.signal });
    const stream = events(res.body!);
    const endpoint = /data: (\S+)/.exec((await stream.next()).value as string)![1]!;
    const post = (body: unknown) => fetch(gw.url(endpoint), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })).status).toBe(202);
    await stream.next();

    gc();
    const before = process.memoryUsage().arrayBuffers;
    expect((await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'huge', arguments: {} } })).status).toBe(202);
    const error = JSON.parse(/data: (.*)/.exec((await stream.next()).value as string)![1]!) as { id: number; error: { data: { code: string } } };
    expect(error).toMatchObject({ id: 2, error: { code: -32003, data: { code: 'RETROFIT_ERR_RESULT_TOO_LARGE' } } });
    // 64 MiB crossed the gateway; what it held at any of the 8 samples stayed a small fraction of it (held
    // whole, the event would be 32 MiB by the fourth sample).
    expect(samples).toHaveLength(8);
    process.stdout.write(`held: ${samples.map((s) => ((s - before) / MIB).toFixed(1)).join(" ")} MiB\n`);
    expect(Math.max(...samples) - before).toBeLessThan(16 * MIB);
    // Flat, not growing with what has crossed: the last sample is no higher than the first plus a few MiB.
    expect(samples.at(-1)! - samples[0]!).toBeLessThan(4 * MIB);

    expect((await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'small', arguments: {} } })).status).toBe(202);
    expect((await stream.next()).value).toContain('"text":"small"');
    controller.abort();
  });
});
