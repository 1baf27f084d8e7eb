/**
 * A legacy HTTP+SSE upstream answering with one 3 MB event, retrofitted on the worker thread: the event is
 * gathered in shared memory as it arrives and its data reaches the worker as those bytes (never decoded on the
 * event loop), and the structuredContent is what the synchronous engine makes of the text. A 600 KB
 * notification written just before the answer arrives first (its bytes are checked in order), and one nested
 * 200,000 deep is refused before anything recurses over it: the request it answers gets UPSTREAM_PROTOCOL.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { compileUpstreamPolicy } from '../../src/policy/compile.js';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { rawLegacyUpstream, type LegacyMessage } from '../helpers/raw-legacy.js';
import { openSession, post, sessionHeaders } from '../hostile/harness.js';

const BYTES = 3_000_000;
const NOTE_BYTES = 600_000;
const DEEP = 200_000;
const tools = { huge: { outputSchema: { type: 'string' } }, deep: { outputSchema: { type: 'string' } } } as const;

async function legacyUpstream(): Promise<string> {
  const up = await rawLegacyUpstream((body, res, legacy) => {
    res.writeHead(202).end();
    const m = body as LegacyMessage & { params?: { name?: string } };
    if (m.id === undefined) return;
    if (m.method === 'initialize') return legacy.initialized(m.id);
    const id = JSON.stringify(m.id);
    if (m.params?.name === 'deep') {
      return legacy.event(`{"jsonrpc":"2.0","id":${id},"result":{"content":[],"x":${'['.repeat(DEEP)}${']'.repeat(DEEP)}}}`);
    }
    // A large log notification, then the large answer: written at once, one after the other.
    legacy.event(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'n'.repeat(NOTE_BYTES) } }));
    legacy.event(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${'x'.repeat(BYTES)}"}]}}`);
  });
  return up.url;
}

function call(id: string, name: string): object {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } };
}

describe('a large legacy SSE event', () => {
  it('reaches the worker as the bytes it was gathered in, after the notification before it, retrofitted as the engine makes it', async () => {
    const upstream = sseUpstream('legacy', await legacyUpstream(), { timeoutMs: 20_000, tools });
    const gw = await startGateway(gatewayConfig([upstream]));
      const url = gw.url('/legacy/mcp');
      const h = sessionHeaders(await openSession(url));

      const answer = await post(url, call('big', 'huge'), h);
      expect(answer.status).toBe(200);
      // The notification first, whole; then the answer.
      expect(answer.messages.map((m) => m.method ?? m.id)).toEqual(['notifications/message', 'big']);
      expect((answer.messages[0]!.params as { data: string }).data).toHaveLength(NOTE_BYTES);
      const text: JsonObject = { content: [{ type: 'text', text: 'x'.repeat(BYTES) }] };
      const policy = compileUpstreamPolicy(upstream, { onInvalid: 'error', legacyRoots: 'wrap', coerce: true }).policy;
      const expected = rewriteToolCall(text, 'huge', policy, '2025-06-18').result;
      const result = answer.messages[1]!.result as { structuredContent: { result: string } };
      expect(result.structuredContent).toEqual(expected.structuredContent);
      expect(result.structuredContent.result).toHaveLength(BYTES);
      // As bytes: the worker parsed them (`unparsed`), nothing decoded them on the event loop first (`input`).
      expect(gw.logs.filter((l) => l.msg === 'retrofit offloaded to a worker')).toMatchObject([{ tool: 'huge', unparsed: true, input: 'bytes' }]);

      const deep = await post(url, call('d', 'deep'), h);
      expect(deep.messages).toEqual([{ jsonrpc: '2.0', id: 'd', error: { code: -32002, message: 'upstream "legacy" sent an invalid response', data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } } }]);
      expect(gw.logs.filter((l) => l.msg === 'upstream message nested deeper than 512 levels dropped')).toHaveLength(1);
  });
});
