import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import type { PendingRequest, Rewriter } from '../../src/pipeline/rewrite.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

/** A rewriter that marks every result it is handed, and records what it saw. */
function markingRewriter(): Rewriter & { seen: PendingRequest[] } {
  const seen: PendingRequest[] = [];
  return {
    seen,
    needsRewrite: (method) => method === 'tools/call',
    respond(request, input) {
      const message = input.message!;
      seen.push(request);
      return { kind: 'message', original: message, message: { ...message, result: { ...(message.result as JsonObject), marked: `${request.tool ?? '?'}@${request.revision}` } } };
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
}

const result = (id: number, text: string): string => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });

// The upstream answers by tool name: `json` as JSON, `sse` on the POST stream (after an unrelated response
// with another id), `later` with only a priming event — its result comes on a GET replayed from Last-Event-ID.
async function scriptedUpstream() {
  return listen((req, res) => {
    void readBody(req).then((body) => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`id: e2\nevent: message\ndata: ${result(3, 'late')}\n\n`);
        return;
      }
      const msg = JSON.parse(body.toString()) as { id: number; params: { name: string } };
      if (msg.params.name === 'json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(result(msg.id, 'json'));
      } else if (msg.params.name === 'sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`data: ${result(999, 'stray')}\n\nid: e1\ndata: ${result(msg.id, 'sse')}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end('id: e0\ndata:\n\n');
      }
    });
  });
}

function call(url: string, id: number, name: string, session: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }),
  });
}

function dataOf(sse: string): unknown[] {
  return sse
    .split('\n\n')
    .map((block) => block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n'))
    .filter((d) => d.length > 0)
    .map((d) => JSON.parse(d) as unknown);
}

describe('responses are matched to requests by session and JSON-RPC id', () => {
  it('rewrites JSON bodies, SSE events and GET replays, and nothing else', async () => {
    const upstream = await scriptedUpstream();
    const rewriter = markingRewriter();
    // Configured tools: their answers are read wherever they arrive (a tool without a schema only when it has structuredContent).
    const tools = { '*': { outputSchema: { type: 'object' } } };
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`, { tools })]), { rewriter });
    const url = gw.url('/up/mcp');

    const json = await call(url, 1, 'json', 'A');
    const jsonText = await json.text();
    expect(JSON.parse(jsonText)).toMatchObject({ id: 1, result: { marked: 'json@2025-11-25' } });
    expect(Number(json.headers.get('content-length'))).toBe(Buffer.byteLength(jsonText));

    const sse = dataOf(await (await call(url, 2, 'sse', 'A')).text());
    expect(sse).toEqual([JSON.parse(result(999, 'stray')), { ...(JSON.parse(result(2, 'sse')) as JsonObject), result: { content: [{ type: 'text', text: 'sse' }], marked: 'sse@2025-11-25' } }]);

    // The POST for id 3 ends with only a priming event; its answer arrives on a GET with Last-Event-ID.
    expect(await (await call(url, 3, 'later', 'A')).text()).toBe('id: e0\ndata:\n\n');
    // Another session's GET carries the same id: not the same request, so not rewritten.
    const other = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'B', 'last-event-id': 'e0' } });
    expect(await other.text()).toBe(`id: e2\nevent: message\ndata: ${result(3, 'late')}\n\n`);
    const replay = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'A', 'last-event-id': 'e0' } });
    const replayed = await replay.text();
    expect(replayed).toMatch(/^event: message\nid: e2\ndata: /);
    expect(dataOf(replayed)).toEqual([{ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'late' }], marked: 'later@2025-11-25' } }]);
    // A client may replay the same event again: it gets the same rewritten response every time.
    const again = await fetch(url, { headers: { accept: 'text/event-stream', 'mcp-session-id': 'A', 'last-event-id': 'e0' } });
    expect(await again.text()).toBe(replayed);

    expect(rewriter.seen.map((r) => r.tool)).toEqual(['json', 'sse', 'later', 'later']);
    expect(rewriter.seen.every((r) => r.upstream === 'up' && r.method === 'tools/call')).toBe(true);
  });
});
