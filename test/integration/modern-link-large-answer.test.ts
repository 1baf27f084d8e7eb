/**
 * A session-era client in front of a 2026-07-28-only upstream (src/upstream/modern-link.ts) answered with
 * messages past OFFLOAD_BYTES: each answer is reshaped for the client's revision (its id the client's, its
 * result without `resultType`, `ttlMs`, `cacheScope`) on the pipeline's worker, never parsed or serialised on
 * the event loop, over JSON and SSE answers; with a configured outputSchema it is then retrofitted on the worker
 * as well. A large log message keeps its place before the small answer after it; a large answer nested past
 * MAX_DEPTH, one cut off halfway (JSON or SSE) and one past limits.maxResultBytes each get their JSON-RPC error at
 * once; a small answer stays on the main thread.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';
import { OFFLOAD_BYTES } from '../../src/pipeline/offload/plan.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startRawModern, writeJson, type ModernCall } from '../helpers/raw-modern.js';

const rows = Array.from({ length: 40_000 }, (_, i) => ({ id: i, name: `row ${i} "q" ü` }));
const TEXT = JSON.stringify({ rows });
const schema = {
  type: 'object',
  properties: { rows: { type: 'array', items: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] } } },
  required: ['rows'],
};
const TOOLS = ['plain', 'plain-sse', 'typed', 'typed-sse', 'small', 'deep', 'noisy-sse', 'cut', 'cut-sse', 'huge'];

function answer(m: ModernCall, res: ServerResponse): void {
  const name = m.name;
  if (name === 'deep') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":{"content":[],"x":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`);
  }
  if (name === 'noisy-sse') {
    // A large log message, then the small result: they reach the client in this order.
    const log = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: TEXT } };
    const done = { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'done' }] } };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    return void res.end(`event: message\ndata: ${JSON.stringify(log)}\n\nevent: message\ndata: ${JSON.stringify(done)}\n\n`);
  }
  if (name === 'cut' || name === 'cut-sse') {
    // Half of a large answer, then the connection is reset.
    const whole = JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', content: [{ type: 'text', text: TEXT }] } });
    const sse = name === 'cut-sse';
    res.writeHead(200, sse ? { 'content-type': 'text/event-stream' } : { 'content-type': 'application/json', 'content-length': String(whole.length) });
    res.write(`${sse ? 'event: message\ndata: ' : ''}${whole.slice(0, whole.length >> 1)}`);
    return void setImmediate(() => res.destroy());
  }
  const text = name === 'small' ? '{"rows":[]}' : name === 'huge' ? TEXT.repeat(3) : TEXT;
  const whole = { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', ttlMs: 5, cacheScope: 'private', content: [{ type: 'text', text }] } };
  if (!name.endsWith('-sse')) return writeJson(res, 200, whole);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const progress = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } };
  res.end(`event: message\ndata: ${JSON.stringify(progress)}\n\nevent: message\ndata: ${JSON.stringify(whole)}\n\n`);
}

describe('large answers of a 2026-07-28-only upstream to a session-era client', () => {
  it('are reshaped (and retrofitted) on the worker, over JSON and SSE; a deep one gets an error', async () => {
    expect(TEXT.length).toBeGreaterThan(OFFLOAD_BYTES);
    const tools = { 'typed': { outputSchema: schema }, 'typed-sse': { outputSchema: schema }, 'small': { outputSchema: schema } };
    // The large answers (1.3 MB) are within maxResultBytes; `huge` (3.8 MB) is not.
    const url = await startRawModern(TOOLS, answer);
    const gw = await startGateway(gatewayConfig([httpUpstream('modern', url, { tools, timeoutMs: 20_000 })], { limits: { ...DEFAULT_LIMITS, maxResultBytes: 2 * 1024 * 1024 } }));
    const client = new Client({ name: 'v1', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/modern/mcp'))));
    onTestFinished(() => client.close());
    await client.listTools();

    for (const name of ['plain', 'plain-sse']) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result, name).toEqual({ content: [{ type: 'text', text: TEXT }] });
    }
    for (const name of ['typed', 'typed-sse']) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.structuredContent, name).toEqual({ rows });
      expect(result).not.toHaveProperty('resultType');
      expect(result).not.toHaveProperty('ttlMs');
    }
    const small = await client.callTool({ name: 'small', arguments: {} });
    expect(small.structuredContent).toEqual({ rows: [] });

    // Four large answers reshaped on the worker (none on the event loop), two of them retrofitted there too.
    const reshaped = gw.logs.filter((l) => l.msg === 'a large 2026-07-28 answer reshaped on a worker');
    expect(reshaped).toHaveLength(4);
    expect(gw.logs.filter((l) => l.msg === 'retrofit offloaded to a worker')).toEqual([
      expect.objectContaining({ tool: 'typed', input: 'bytes' }),
      expect.objectContaining({ tool: 'typed-sse', input: 'bytes' }),
    ]);

    // A large message that does not answer (a log message) keeps its place before the small answer after it.
    const seen: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void seen.push(`log ${String(n.params.data).length}`));
    const noisy = client.callTool({ name: 'noisy-sse', arguments: {} }).then((r) => seen.push(`result ${(r.content as { text: string }[])[0]!.text}`));
    await noisy;
    expect(seen).toEqual([`log ${TEXT.length}`, 'result done']);
    expect(gw.logs.filter((l) => l.msg === 'a large 2026-07-28 answer reshaped on a worker')).toHaveLength(5);

    // Each broken or refused large answer is answered at once with its error (never at timeoutMs: 20 s).
    const failure = (name: string): Promise<string | undefined> =>
      client.callTool({ name, arguments: {} }, undefined, { timeout: 30_000 }).then(
        () => undefined,
        (err: { data?: { code?: string } }) => err.data?.code,
      );
    expect(await failure('deep')).toBe('RETROFIT_ERR_UPSTREAM_PROTOCOL');
    expect(await failure('cut')).toBe('RETROFIT_ERR_UPSTREAM_RESET');
    expect(await failure('cut-sse')).toBe('RETROFIT_ERR_UPSTREAM_RESET');
    expect(await failure('huge')).toBe('RETROFIT_ERR_RESULT_TOO_LARGE');
    // The session goes on.
    expect((await client.callTool({ name: 'small', arguments: {} })).structuredContent).toEqual({ rows: [] });
  });
});
