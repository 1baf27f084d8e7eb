/**
 * Regression: a stdio child answered a tools/call with one line, a batch `[progress, log message, answer]`
 * (2025-03-26 allows batches). The session settled every message of the batch before routing any, so the
 * answer had taken its request off the pending table when the progress and the log message were routed: they
 * found no request (neither by progress token nor as the only one in flight) and went to the session's own
 * stream — lost without a GET stream open, and on a pooled session (a 2026-07-28 client) lost for good. Now a
 * message before an answer in a batch goes on that answer's request's stream, before it, in the batch's order;
 * the same for a batch past 256 KiB, read on the worker.
 */
import { describe, expect, it } from 'vitest';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { openSession, post, sessionHeaders } from '../hostile/harness.js';

const LARGE = 300_000;
/** tools/call `batch`: one line, [progress for the call's token, a log message (`pad` long), the answer]. */
const child = rawChild(`(m, out) => {
  if (m.method !== 'tools/call') return out({ jsonrpc: '2.0', id: m.id, result: {} });
  const token = m.params._meta && m.params._meta.progressToken;
  const pad = 'L'.repeat((m.params.arguments && m.params.arguments.pad) || 0);
  out([
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } },
    { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'log ' + pad } },
    { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'batched' }] } },
  ]);
}`);

const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tk', progress: 1, total: 2 } };
const logged = (pad: number): object => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: `log ${'L'.repeat(pad)}` } });
const answer = (id: number): object => ({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'batched' }] } });

describe('regression: the notifications of an upstream batch that carries the answer stay with their request', () => {
  it('on a session of its own: progress, log and answer on the POST stream, in the batch\'s order', async () => {
    const gw = await startStdioGateway({ args: rawArgs(child) });
    const headers = sessionHeaders(await openSession(gw.url));
    let id = 0;
    for (const pad of [0, LARGE]) {
      const r = await post(gw.url, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'batch', arguments: { pad }, _meta: { progressToken: 'tk' } } }, headers);
      expect(r.status).toBe(200);
      expect(r.messages).toEqual([progress, logged(pad), answer(id)]);
    }
  });

  it('on a pooled session (a 2026-07-28 client): progress and log reach the request before its answer', async () => {
    const gw = await startStdioGateway({ args: rawArgs(child) });
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 'modern', version: '1' },
      'io.modelcontextprotocol/logLevel': 'debug',
      progressToken: 'tk',
    };
    const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'batch' };
    let id = 0;
    for (const pad of [0, LARGE]) {
      const r = await post(gw.url, { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'batch', arguments: { pad }, _meta: meta } }, headers);
      expect(r.status).toBe(200);
      expect(r.messages).toMatchObject([progress, logged(pad), { jsonrpc: '2.0', id, result: { resultType: 'complete', content: [{ type: 'text', text: 'batched' }] } }]);
    }
  });
});
