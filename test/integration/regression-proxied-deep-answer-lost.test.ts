/**
 * Regression (found by `npm run faults`, kind deep-json, 3 of 20,000 sessions): a `url:` upstream's answer
 * nested 100,000 levels deep, to a call the gateway awaits (its tool has an outputSchema), went into code that
 * recurses; what that threw ended the SSE answer with nothing written — the client got an empty 200 and never
 * its answer. The stdio and legacy SSE links already refused such messages before anything recursed over them;
 * now the proxied relay does too: the awaited answer becomes RETROFIT_ERR_UPSTREAM_PROTOCOL (as an SSE event, or
 * as the JSON body), and an answer nobody awaits passes as it came.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { post } from '../hostile/harness.js';

const DEPTH = 100_000;
const PROTOCOL_ERROR = { code: -32002, message: 'upstream "deep" sent an invalid response', data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } };

/** Answers tools/call with a result nested DEPTH deep, as SSE or JSON (by the tool's name). */
async function deepUpstream(): Promise<string> {
  const up = await listen((req, res) => {
    void readBody(req).then((body) => {
      const m = JSON.parse(body.toString()) as { id?: number; method: string; params?: { name?: string } };
      if (m.method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'deep', version: '1' } } }));
        return;
      }
      if (m.id === undefined) return void res.writeHead(202).end();
      // A `large` one is past the 256 KiB a worker takes: its relay reads the data line as bytes. A `huge` one
      // is past the 1 MiB the depth check reads in one go: it reads it in slices, one ending inside the text.
      const name = m.params?.name ?? '';
      const text = name.includes('huge') ? '\\"x'.repeat(400_000) : name.includes('large') ? 'x'.repeat(300_000) : '{}';
      const answer = `{"jsonrpc":"2.0","id":${m.id},"result":{"content":[{"type":"text","text":"${text}"}],"deep":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}}`;
      if (m.params?.name?.startsWith('sse')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: message\ndata: ${answer}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer);
      }
    });
  });
  return `${up.origin}/mcp`;
}

describe('regression: a proxied answer nested 100,000 deep', () => {
  it.each([
    ['as an SSE event', 'sse_typed'],
    ['as a large SSE event', 'sse_large_typed'],
    ['as a huge SSE event, read in slices', 'sse_huge_typed'],
    ['as a JSON body', 'json_typed'],
    ['as a huge JSON body, read in slices', 'json_huge_typed'],
  ])('%s, awaited for its schema: the client gets UPSTREAM_PROTOCOL, and the session goes on', async (_label, tool) => {
    const schema = { outputSchema: { type: 'object' } };
    const gw = await startGateway(gatewayConfig([httpUpstream('deep', await deepUpstream(), { tools: { sse_typed: schema, sse_large_typed: schema, sse_huge_typed: schema, json_typed: schema, json_huge_typed: schema } })]));
    const url = gw.url('/deep/mcp');
    const headers = { 'mcp-session-id': 's1', 'mcp-protocol-version': '2025-06-18' };
    const call = (id: number, name: string) => post(url, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } }, headers);

    const answer = await call(1, tool);
    expect(answer.status).toBe(tool.startsWith('sse') ? 200 : 502);
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 1, error: PROTOCOL_ERROR }]);
    expect(gw.logs.some((l) => l.msg === 'upstream message nested deeper than 512 levels; its request gets an error')).toBe(true);
    // A call nothing rewrites gets the upstream's bytes untouched, deep as they are.
    const untyped = await call(2, tool.startsWith('sse') ? 'sse_plain' : 'json_plain');
    expect(untyped.text).toContain('['.repeat(1000));
  });
});
