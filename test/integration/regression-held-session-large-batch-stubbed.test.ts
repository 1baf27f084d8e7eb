/**
 * Regression: a batch line past 256 KiB from an upstream the gateway holds a session with (here a stdio child)
 * is read on the worker, which gives the session a stub of each message (its id, method and what routing
 * needs, without the bulk). A batch's messages are routed one by one, and each went to the client as that stub:
 * a resources/read answer arrived as `"result":{}`, its log notification as `"params":{}` — silent data loss, on
 * a session of its own and on a pooled one (2026-07-28 clients) alike, over stdio and legacy HTTP+SSE. Now each message of a batch goes as
 * the upstream wrote it (its own bytes), unless the pipeline changed it; a batch element the pipeline must
 * rewrite (a tools/call answer of a tool with a configured outputSchema) is rewritten, large or small.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { rawLegacyUpstream } from '../helpers/raw-legacy.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { openSession, post, sessionHeaders } from '../hostile/harness.js';

const LARGE = 300_000;
/** Answers resources/read and tools/call with one line: a batch of a notification and the answer. */
const child = rawChild(`(m, out) => {
  const pad = 'P'.repeat((m.params && m.params.pad) || 0);
  // Written by hand: what only the upstream's own bytes keep (spaces, an escaped character, 1.0).
  const bs = String.fromCharCode(92);
  if (m.method === 'resources/read' && m.params.uri === 'x:raw') return out('[ {"jsonrpc": "2.0","method":"notifications/message","params":{"level":"info","data":"caf' + bs + 'u00e9 ' + pad + '","n":1.0}} ,'
    + ' {"jsonrpc":"2.0","id":' + m.id + ',"result":{"contents":[{"uri":"x:raw","text":"' + bs + '/ ' + pad + '"}]}} ]');
  if (m.method === 'resources/read') return out([
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'note ' + pad } },
    { jsonrpc: '2.0', id: m.id, result: { contents: [{ uri: m.params.uri, mimeType: 'text/plain', text: pad }] } },
  ]);
  if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'typed', inputSchema: { type: 'object' } }] } });
  if (m.method === 'tools/call') return out([
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'typed ' + pad } },
    { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: JSON.stringify({ n: 1, pad }) }] } },
  ]);
  out({ jsonrpc: '2.0', id: m.id, result: {} });
}`);
const TOOLS = { typed: { outputSchema: { type: 'object', properties: { n: { type: 'integer' }, pad: { type: 'string' } }, required: ['n', 'pad'] } } };

const note = (data: string): Record<string, unknown> => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } });
const read = (id: number, pad: number): object => ({ jsonrpc: '2.0', id, method: 'resources/read', params: { uri: 'x:y', pad } });
const call = (id: number, pad: number): object => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'typed', arguments: {}, pad } });

describe('regression: a large batch from a held session reaches the client whole', () => {
  it('on a session of its own: each message of the batch as the child wrote it, large as small', async () => {
    const gw = await startStdioGateway({ args: rawArgs(child), tools: TOOLS });
    const session = await openSession(gw.url);
    const headers = sessionHeaders(session);
    expect((await post(gw.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, headers)).status).toBe(200);
    let id = 10;
    for (const pad of [8, LARGE]) {
      const text = 'P'.repeat(pad);
      const r = await post(gw.url, read(++id, pad), headers);
      expect(r.messages).toEqual([note(`note ${text}`), { jsonrpc: '2.0', id, result: { contents: [{ uri: 'x:y', mimeType: 'text/plain', text }] } }]);
      // The answer to rewrite: given its structuredContent; the notification beside it unchanged.
      const t = await post(gw.url, call(++id, pad), headers);
      expect(t.messages).toEqual([
        note(`typed ${text}`),
        { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: JSON.stringify({ n: 1, pad: text }) }], structuredContent: { n: 1, pad: text } } },
      ]);
    }
    // Each message of a batch as the child wrote it, byte for byte.
    for (const pad of [8, LARGE]) {
      const text = 'P'.repeat(pad);
      const r = await post(gw.url, { jsonrpc: '2.0', id: ++id, method: 'resources/read', params: { uri: 'x:raw', pad } }, headers);
      expect(r.text).toContain(`data: {"jsonrpc": "2.0","method":"notifications/message","params":{"level":"info","data":"caf\\u00e9 ${text}","n":1.0}}\n`);
      expect(r.text).toContain(`data: {"jsonrpc":"2.0","id":${id},"result":{"contents":[{"uri":"x:raw","text":"\\/ ${text}"}]}}\n`);
    }
    // The large batch was read on the worker, not parsed on the event loop (the one to rewrite is, whole).
    expect(gw.logs.filter((l) => l.msg === 'a large message read on a worker').length).toBeGreaterThanOrEqual(2);
  });

  it('on a pooled session (a 2026-07-28 client): the answer carries its contents', async () => {
    const gw = await startStdioGateway({ args: rawArgs(child), tools: TOOLS });
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'modern', version: '1' }, 'io.modelcontextprotocol/logLevel': 'debug' };
    const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/read', 'mcp-name': 'x:y' };
    for (const pad of [8, LARGE]) {
      const text = 'P'.repeat(pad);
      const r = await post(gw.url, { jsonrpc: '2.0', id: 7, method: 'resources/read', params: { uri: 'x:y', pad, _meta: meta } }, headers);
      expect(r.status).toBe(200);
      expect(r.messages).toMatchObject([note(`note ${text}`), { jsonrpc: '2.0', id: 7, result: { resultType: 'complete', contents: [{ uri: 'x:y', mimeType: 'text/plain', text }] } }]);
    }
  });

  it('over legacy HTTP+SSE: the batch event\'s messages reach the client whole', async () => {
    const up = await rawLegacyUpstream((body, res, legacy) => {
      res.writeHead(202).end();
      if (Array.isArray(body) || body.id === undefined) return;
      if (body.method === 'initialize') return legacy.initialized(body.id);
      const text = 'P'.repeat(Number(body.params?.pad ?? 0));
      legacy.event(JSON.stringify([note(`note ${text}`), { jsonrpc: '2.0', id: body.id, result: { contents: [{ uri: 'x:y', text }] } }]));
    });
    const gw = await startGateway(gatewayConfig([sseUpstream('legacy', up.url)]));
    const url = gw.url('/legacy/mcp');
    const headers = sessionHeaders(await openSession(url));
    let id = 0;
    for (const pad of [8, LARGE]) {
      const text = 'P'.repeat(pad);
      const r = await post(url, read(++id, pad), headers);
      expect(r.messages).toEqual([note(`note ${text}`), { jsonrpc: '2.0', id, result: { contents: [{ uri: 'x:y', text }] } }]);
    }
  });
});
