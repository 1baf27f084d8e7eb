import { describe, expect, it } from 'vitest';
import type { ToolConfig } from '../../../../src/config/types.js';
import { classifyMessage } from '../../../../src/jsonrpc/classify.js';
import { createLogger } from '../../../../src/log.js';
import { createMetrics } from '../../../../src/metrics.js';
import type { RelayContext } from '../../../../src/http/proxy/relay.js';
import { relaySse } from '../../../../src/http/proxy/sse-relay.js';
import { createRewriter } from '../../../../src/pipeline/rewrite.js';
import { SessionState } from '../../../../src/session/state.js';
import { listen } from '../../../helpers/listen.js';
import { upstreamWith } from '../../retrofit/helpers.js';

/** The SSE relay of a proxied answer, fed chunk by chunk, its bytes read back by a real client. */
const TYPED: ToolConfig = { outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, onInvalid: 'error', coerce: false };
const policy = upstreamWith({ typed: TYPED });
const log = createLogger({ level: 'silent', destination: { write: () => undefined } });
const rewriter = createRewriter(createMetrics({ defaultMetrics: false }), { pool: false, isolatePool: false });

/** The answer to call 1 as an SSE event with CRLF line ends, cut before its last LF. */
const ANSWER = `event: message\r\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{"n":1}' }] } })}\r\n\r`;
const CHUNKS = [ANSWER, '\n', 'data: next\n\n'];

/** What a client gets of `chunks` relayed while the session awaits call 1 of `tool` (nothing, when undefined). */
async function relayed(chunks: readonly string[], tool: string | undefined, max = 1 << 20): Promise<string> {
  const state = new SessionState({ upstream: 'u', bridge: true });
  if (tool !== undefined) state.expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: {} } }), { header: '2025-11-25', policy });
  const ctx: RelayContext = { state, rewriter, log, max, upstream: 'u', timeoutMs: 10_000, own: [] };
  async function* body(): AsyncGenerator<Buffer> {
    for (const chunk of chunks) yield Buffer.from(chunk);
  }
  const { origin } = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    void relaySse(body(), res, ctx, () => undefined);
  });
  return (await fetch(origin)).text();
}

describe('SSE relay: the LF of a CRLF whose CR ended a block in an earlier chunk', () => {
  it('is dropped with the block when the block was rewritten: the gateway frame has its own blank line', async () => {
    const out = await relayed(CHUNKS, 'typed');
    expect(out).toMatch(/^event: message\ndata: \{[^\n]*"structuredContent":\{"n":1\}[^\n]*\}\n\ndata: next\n\n$/);
  });

  it('is dropped with a block dropped over maxResultBytes (its error event in its place)', async () => {
    const out = await relayed(CHUNKS, 'typed', 64);
    expect(out).toMatch(/^event: message\ndata: \{"jsonrpc":"2.0","id":1,"error":\{[^\n]*RETROFIT_ERR_RESULT_TOO_LARGE[^\n]*\}\n\ndata: next\n\n$/);
  });

  it('goes after the block when the block went as it came: passed, or held and unchanged', async () => {
    expect(await relayed(CHUNKS, undefined)).toBe(CHUNKS.join(''));
    expect(await relayed(CHUNKS, 'plain')).toBe(CHUNKS.join(''));
  });
});
