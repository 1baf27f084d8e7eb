/**
 * Regression: a large upstream batch (2025-03-26 allows them) holding the answer to a tools/call of a tool with a
 * configured outputSchema was read on the worker, and then, because one of its messages must be rewritten,
 * JSON.parse'd whole on the event loop (src/session/inbound.ts mustRead: `batch || …`), with its text —
 * megabytes, for a large result — while every other session waited. The exclusion dated from before the worker
 * told where each message of a batch lies (InspectedMessage.span): an answer could not be rewritten, nor
 * recorded, apart from the rest. Now such an answer goes to the worker as its own bytes, as a single large
 * answer does, and the batch is joined again around the worker's bytes, every other message in its place as the
 * upstream wrote it. Over the proxied route (the batch whole) and on a session the gateway holds (each message
 * on its own).
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { openSession, post, sessionHeaders } from '../hostile/harness.js';

/** Past the offload threshold (256 KiB), and small enough to stay fast. */
const PAD = 300_000;
const pad = 'P'.repeat(PAD);
const TOOLS = { typed: { outputSchema: { type: 'object', properties: { n: { type: 'integer' }, pad: { type: 'string' } }, required: ['n', 'pad'] } } };
const PARSED_HERE = 'a large message read on a worker must be read whole: parsed on the event loop';

const typedText = (n: number, p: string): string => JSON.stringify({ n, pad: p });
const answer = (id: number, text: string): Record<string, unknown> => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } });
const retrofitted = (id: number, n: number, p: string): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text: typedText(n, p) }], structuredContent: { n, pad: p } },
});
/** Written by hand: what only the upstream's own bytes keep (spaces, an escaped character, 1.0). */
const HAND = '{"jsonrpc": "2.0","id":2,"result":{"resources":[],"x":1.0,"s":"caf\\u00e9"}}';

/** What proves the large answer was parsed and retrofitted on the worker, never on the event loop. */
async function onTheWorker(logs: readonly Record<string, unknown>[], offloads: () => Promise<{ values: { labels: Record<string, unknown>; value: number }[] }>): Promise<void> {
  expect(logs.filter((l) => l.msg === PARSED_HERE)).toEqual([]);
  const offloaded = logs.filter((l) => l.msg === 'retrofit offloaded to a worker');
  expect(offloaded.map((l) => ({ tool: l.tool, unparsed: l.unparsed, input: l.input }))).toEqual([{ tool: 'typed', unparsed: true, input: 'bytes' }]);
  expect(offloaded[0]!.bytes).toBeGreaterThan(PAD);
  expect((await offloads()).values).toEqual([{ labels: { result: 'worker' }, value: 1 }]);
}

describe('regression: a large batch holding an answer to rewrite', () => {
  it('over the proxied route: the answer retrofitted on the worker, the batch in order around it', async () => {
    const body = `[${JSON.stringify(answer(1, typedText(1, '')))} , ${HAND},\n${JSON.stringify(answer(3, typedText(3, pad)))},${JSON.stringify(answer(4, 'plain'))}]`;
    const upstream = await listen((req, res) => {
      void readBody(req).then(() => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    });
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`, { tools: TOOLS })]));
    const r = await post(
      gw.url('/up/mcp'),
      [
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'typed', arguments: {} } },
        { jsonrpc: '2.0', id: 2, method: 'resources/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'typed', arguments: {} } },
        { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'plain', arguments: {} } },
      ],
      { 'mcp-session-id': 'S', 'mcp-protocol-version': '2025-06-18' },
    );
    expect(r.status).toBe(200);
    expect(r.messages).toEqual([retrofitted(1, 1, ''), JSON.parse(HAND), retrofitted(3, 3, pad), answer(4, 'plain')]);
    await onTheWorker(gw.logs, () => gw.metrics.offloads.get());
    // The message nothing changed goes as the upstream wrote it, byte for byte.
    expect(r.text).toContain(HAND);
  });

  it('on a session the gateway holds: each message of the batch on its own, the answer retrofitted on the worker', async () => {
    // Answers a tools/call with one line: a batch of a log notification and the answer.
    const child = rawChild(`(m, out) => {
      if (m.method !== 'tools/call') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'typed', inputSchema: { type: 'object' } }] } });
      out([
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'before' } },
        { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: JSON.stringify({ n: 7, pad: 'P'.repeat(${PAD}) }) }] } },
      ]);
    }`);
    const gw = await startStdioGateway({ args: rawArgs(child), tools: TOOLS });
    const headers = sessionHeaders(await openSession(gw.url));
    expect((await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers)).status).toBe(200);
    const r = await post(gw.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'typed', arguments: {} } }, headers);
    expect(r.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'before' } }, retrofitted(2, 7, pad)]);
    expect(gw.logs.filter((l) => l.msg === 'a large message read on a worker')).toHaveLength(1);
    await onTheWorker(gw.logs, () => gw.metrics.offloads.get());
  });
});
