/**
 * Regression: a rewritten SSE event whose original ended `\r\n\r\n`, the last `\n` in a later chunk, reached
 * the client followed by that `\n` on its own (`…\n\n\n`): the relay forwarded the LF as the rest of the block
 * that ended at its CR, though the block had gone out as the gateway's frame, with its own blank line. The LF
 * belongs to the block that ended: it goes after a block that went as it came, and is dropped with one that
 * was rewritten.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

/** The upstream's answer to call `id`, as an SSE event with CRLF line ends, cut before its last LF. */
function answerChunks(id: number): [string, string] {
  const answer = { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '{"n":1}' }] } };
  return [`event: message\r\ndata: ${JSON.stringify(answer)}\r\n\r`, '\n'];
}

describe('regression: the LF of a CRLF split from the event it ends', () => {
  it('is dropped with a rewritten event, and still follows an event that went as it came', async () => {
    const upstream = await listen((req, res) => {
      void readBody(req).then(async (body) => {
        const m = JSON.parse(body.toString()) as { id: number };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // Each chunk leaves separately: waiting for the write callback keeps them apart on the wire.
        for (const chunk of answerChunks(m.id)) await new Promise<void>((resolve) => res.write(chunk, () => resolve()));
        res.end();
      });
    });
    const tools = { typed: { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } } };
    const gw = await startGateway(gatewayConfig([httpUpstream('raw', `${upstream.origin}/mcp`, { tools })]));
    const call = async (id: number, name: string): Promise<string> => {
      const res = await fetch(gw.url('/raw/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }),
      });
      return Buffer.from(await res.arrayBuffer()).toString('utf8');
    };

    const rewritten = await call(1, 'typed');
    // The gateway's own frame of the rewritten answer, and nothing after it.
    expect(rewritten).toMatch(/^event: message\ndata: \{.*"structuredContent":\{"n":1\}.*\}\n\n$/);
    // Its own bytes, LF and all: a tool with no schema leaves the answer as it came.
    expect(await call(2, 'plain')).toBe(answerChunks(2).join(''));
  });
});
