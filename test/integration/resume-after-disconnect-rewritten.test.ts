import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import type { PendingRequest, Rewriter } from '../../src/pipeline/rewrite.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startV1Server } from '../helpers/v1-server.js';

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** Read SSE blocks from a stream until one satisfies `until`; returns the blocks read. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: (block: string) => boolean): Promise<string[]> {
  const blocks: string[] = [];
  let buffer = '';
  for (;;) {
    const r = await reader.read();
    if (r.done) return blocks;
    buffer += Buffer.from(r.value).toString();
    let i: number;
    while ((i = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, i);
      buffer = buffer.slice(i + 2);
      blocks.push(block);
      if (until(block)) return blocks;
    }
  }
}

const field = (block: string, name: string): string | undefined =>
  block
    .split('\n')
    .find((l) => l.startsWith(`${name}:`))
    ?.slice(name.length + 1)
    .trim();

describe('a tools/call whose POST stream drops, resumed with Last-Event-ID through the gateway (real v1 server)', () => {
  it('delivers the result on the GET replay, matched by session and id and handed to the rewriter', async () => {
    const upstream = await startV1Server({ eventStore: true });
    const seen: PendingRequest[] = [];
    const rewriter: Rewriter = {
      needsRewrite: (method) => method === 'tools/call',
      respond: (request, input) => {
        const message = input.message!;
        seen.push(request);
        return { kind: 'message', original: message, message: { ...message, result: { ...(message.result as JsonObject), resumed: true } } };
      },
      reshape: () => undefined,
      inspect: () => undefined,
      demux: () => undefined,
      leavesUnread: () => false,
      passedUnread: () => {},
      projectNative: () => undefined,
      prepare: () => {},
      close: async () => {},
    };
    // A configured tool: its answer is always read, wherever it arrives.
    const gw = await startGateway(gatewayConfig([httpUpstream('v1', upstream.url, { tools: { '*': { outputSchema: { type: 'object' } } } })]), { rewriter });
    const url = gw.url('/v1/mcp');

    const init = await fetch(url, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
    });
    const session = init.headers.get('mcp-session-id')!;
    await init.text();
    const headers = { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' };
    await (await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();

    // The progress tool emits three notifications before its result; drop the stream after the first one.
    const controller = new AbortController();
    const call = await fetch(url, {
      method: 'POST',
      headers,
      signal: controller.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'progress', arguments: { steps: 3 }, _meta: { progressToken: 'p' } } }),
    });
    const reader = call.body!.getReader();
    const [firstWithId] = (await readUntil(reader, (b) => field(b, 'id') !== undefined && b.includes('notifications/progress'))).slice(-1);
    const lastEventId = field(firstWithId!, 'id')!;
    controller.abort();

    const replay = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', 'last-event-id': lastEventId } });
    expect(replay.status).toBe(200);
    const replayReader = replay.body!.getReader();
    const blocks = await readUntil(replayReader, (b) => b.includes('"id":7'));
    const response = JSON.parse(field(blocks.at(-1)!, 'data')!) as JsonObject;
    expect(response).toEqual({ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'done 3' }], resumed: true } });
    // The result may also have crossed the dropped POST stream before the abort (then it was rewritten twice,
    // identically); either way the replay's copy was matched to the same request.
    expect(seen.length).toBeGreaterThanOrEqual(1);
    for (const r of seen) expect(r).toMatchObject({ upstream: 'v1', method: 'tools/call', tool: 'progress', revision: '2025-11-25' });
    await replayReader.cancel();
  });
});
