/**
 * Regression: a stdio child that sent a server→client request longer than the line bound (which the gateway
 * can only sniff at its ends), carrying the id of a pending client request, had it taken for that request's
 * answer: the client got RETROFIT_ERR_RESULT_TOO_LARGE, and the real answer after it was dropped as unsolicited.
 * The request was read by its id alone — at the tail when its `method` came before (`params` first), or at the
 * head as the line passed the bound, `method` last. Now a message whose ends show a top-level `method` or
 * `params` is never an answer, and one is reported early only when its head shows the id and a result or
 * error: the over-long request is dropped as such, and the client gets the real answer — in share mode too,
 * where the id on the wire is the gateway's own.
 */
import { describe, expect, it } from 'vitest';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { connectV1, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

const MAX = 1024 * 1024;

/** Each call first writes a 1.5 MiB roots/list request with the call's own id (its members ordered as `shape` says), then the answer. */
const CHILD = rawChild(`(m, out) => {
  if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'ask', inputSchema: { type: 'object' } }] } });
  const id = JSON.stringify(m.id);
  const params = '{"pad":"' + 'p'.repeat(1.5 * ${MAX}) + '"}';
  if (m.params.arguments.shape === 'params-first') out('{"params":' + params + ',"method":"roots/list","jsonrpc":"2.0","id":' + id + '}');
  else out('{"jsonrpc":"2.0","id":' + id + ',"params":' + params + ',"method":"roots/list"}');
  out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'real answer' }] } });
}`);

describe.each([
  ['an owned session', false],
  ['share mode', true],
])('regression: an over-long server→client request with a pending request\'s id, %s', (_label, share) => {
  it.each(['params-first', 'method-last'])('is not taken for the answer (%s): the client gets the real one', { timeout: 20_000 }, async (shape) => {
    const gateway = await startStdioGateway({ args: rawArgs(CHILD), maxResultBytes: MAX, upstream: { timeoutMs: 60_000, share } });
    const client = await connectV1(gateway.url, `overlong-${shape}`);
    const result = await client.callTool({ name: 'ask', arguments: { shape } });
    expect(firstText(result)).toBe('real answer');
    expect(gateway.logs.filter((l) => l.msg === 'over-long line on upstream stdout dropped')).toHaveLength(1);
  });
});
