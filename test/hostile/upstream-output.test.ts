/**
 * Bad upstream output through the HTTP proxy: a raw upstream scripted per test answers tools/call (a
 * retrofitted tool) with garbage, and the client must get either the upstream's own bytes (when there is
 * nothing to rewrite) or a clean JSON-RPC error — never a hang, never a crash, and the next exchange works.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { post } from './harness.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';

type Script = (req: IncomingMessage, res: ServerResponse, message: { id?: unknown; method?: string }) => void;

const TOOLS = { report: { outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } };

/** The gateway in front of an upstream whose answer to every POST is `script`; `ping` always works. */
async function scripted(script: Script, limits?: { maxRequestBytes: number; maxResultBytes: number }, timeoutMs?: number): Promise<{ gw: TestGateway; url: string }> {
  const upstream = await listen((req, res) => {
    void readBody(req).then((body) => {
      const message = JSON.parse(body.toString('utf8')) as { id?: unknown; method?: string };
      if (message.method === 'ping') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
      script(req, res, message);
    });
  });
  const gw = await startGateway(gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`, { tools: TOOLS, ...(timeoutMs !== undefined && { timeoutMs }) })], limits ? { limits: { ...DEFAULT_LIMITS, ...limits } } : {}));
  return { gw, url: gw.url('/up/mcp') };
}

/** Object-only clients (2025-06-18) get structuredContent; 2025-03-26, the default, would not. */
const H = { 'mcp-protocol-version': '2025-06-18' };
const call = (id: unknown = 1) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'report', arguments: {} } });
const json = (res: ServerResponse, body: string, status = 200) => void res.writeHead(status, { 'content-type': 'application/json' }).end(body);
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });

async function stillServes(url: string): Promise<void> {
  const ping = await post(url, { jsonrpc: '2.0', id: 'ping', method: 'ping' });
  expect(ping.messages).toEqual([{ jsonrpc: '2.0', id: 'ping', result: {} }]);
}

describe('bad upstream output, HTTP upstream', () => {
  it('regression: truncated JSON answering a retrofitted call was returned as a 200 success; now a 502 JSON-RPC error', async () => {
    const { gw, url } = await scripted((_req, res, m) => json(res, `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"content":[{"type":"te`));
    const answer = await post(url, call(11), H);
    expect(answer.status).toBe(502);
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 11, error: { code: -32002, message: 'upstream "up" sent an invalid response', data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } } }]);
    expect(gw.logs.some((l) => l.msg === 'upstream JSON body does not parse')).toBe(true);
    await stillServes(url);
  });

  it('a response to an unknown id is passed through untouched, and rewrites nothing', async () => {
    const { url } = await scripted((_req, res) => json(res, JSON.stringify({ jsonrpc: '2.0', id: 999, result: text('{"ok": true}') })));
    const answer = await post(url, call(1), H);
    expect(answer.status).toBe(200);
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 999, result: text('{"ok": true}') }]);
    await stillServes(url);
  });

  it('10 MB of text with no JSON is an isError result naming the tool, not a crash', async () => {
    const big = 'no json here, just words. '.repeat(400_000);
    const { url } = await scripted((_req, res, m) => json(res, JSON.stringify({ jsonrpc: '2.0', id: m.id, result: text(big) })), { maxRequestBytes: 1024 * 1024, maxResultBytes: 32 * 1024 * 1024 });
    const answer = await post(url, call(2), H);
    expect(answer.status).toBe(200);
    const result = answer.messages[0]?.result as { isError?: boolean; content: { text: string }[] };
    expect(result.isError).toBe(true);
    expect(result.content.at(-1)?.text).toContain('report');
    await stillServes(url);
  });

  // Regression (the 100k-deep case): coercion recursed past the stack, the engine threw, and the result was
  // passed through unchecked; now the reading fails ("nested too deeply to check") and onInvalid applies.
  it.each([
    ['a long run of {', '{'.repeat(2_000_000)],
    ['an unterminated string', `{"ok": "${'x'.repeat(2_000_000)}`],
    ['nesting 100k deep', `${'['.repeat(100_000)}${']'.repeat(100_000)}`],
  ])('pathological text (%s) is reported as not parseable, not a stall or crash', async (_label, body) => {
    const { url } = await scripted((_req, res, m) => json(res, JSON.stringify({ jsonrpc: '2.0', id: m.id, result: text(body) })), { maxRequestBytes: 1024 * 1024, maxResultBytes: 32 * 1024 * 1024 });
    const answer = await post(url, call(3), H);
    expect(answer.status).toBe(200);
    expect((answer.messages[0]?.result as { isError?: boolean }).isError).toBe(true);
    await stillServes(url);
  });

  it('__proto__ and constructor keys in extracted JSON never reach a prototype', async () => {
    const evil = '{"ok": true, "__proto__": {"polluted": 1}, "constructor": {"prototype": {"polluted": 2}}}';
    const { url } = await scripted((_req, res, m) => json(res, JSON.stringify({ jsonrpc: '2.0', id: m.id, result: text(evil) })));
    const answer = await post(url, call(4), H);
    const structured = (answer.messages[0]?.result as { structuredContent?: Record<string, unknown> }).structuredContent;
    expect(structured).toEqual({ ok: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
  });

  it('an SSE stream cut mid-event ends the client stream without forwarding a half event as an answer', async () => {
    const { url } = await scripted((_req, res, m) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"content":[{"ty`);
    });
    const answer = await post(url, call(5), H);
    expect(answer.status).toBe(200);
    // No complete event: a client sees no response to id 5 (its own timeout or retry applies), never a bogus one.
    expect(answer.messages).toEqual([]);
    await stillServes(url);
  });

  it('an upstream closing the socket between events: the awaited call gets RETROFIT_ERR_UPSTREAM_RESET, and the gateway carries on', async () => {
    const { url } = await scripted((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n', () => res.socket?.destroy());
    });
    const answer = await post(url, call(6), H);
    expect(answer.status).toBe(200);
    expect(answer.messages.map((m) => m.method ?? m.id)).toEqual(['notifications/progress', 6]);
    expect(answer.messages[1]).toMatchObject({ id: 6, error: { code: -32000, data: { code: 'RETROFIT_ERR_UPSTREAM_RESET' } } });
    await stillServes(url);
  });

  it('an upstream closing the socket inside an event ends the client connection (an event cut short cannot take another), and the gateway carries on', async () => {
    const { url } = await scripted((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"${'x'.repeat(4000)}`, () => res.socket?.destroy());
    });
    // Either the body errors (connection reset) or ends early: both are honest; neither is a success.
    const outcome = await post(url, call(6), H).then(
      (a) => a.messages.filter((m) => m.id === 6),
      (err: unknown) => err,
    );
    expect(outcome).toSatisfy((o: unknown) => o instanceof Error || (Array.isArray(o) && o.length === 0));
    await stillServes(url);
  });

  it('an upstream that never answers gets a 504 after timeoutMs', async () => {
    const { url } = await scripted(() => {}, undefined, 300);
    const answer = await post(url, call(7), H);
    expect(answer.status).toBe(504);
    expect(answer.messages[0]).toMatchObject({ id: 7, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_TIMEOUT' } } });
    await stillServes(url);
  });

  it('a 500 with an HTML body passes through as the upstream sent it', async () => {
    const html = '<html><body><h1>500 Internal Server Error</h1></body></html>';
    const { url } = await scripted((_req, res) => void res.writeHead(500, { 'content-type': 'text/html' }).end(html));
    const answer = await post(url, call(8), H);
    expect(answer.status).toBe(500);
    expect(answer.headers.get('content-type')).toBe('text/html');
    expect(answer.text).toBe(html);
    await stillServes(url);
  });
});
