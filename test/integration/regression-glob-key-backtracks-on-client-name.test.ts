/**
 * Regression: a glob of the config (a `tools:` key, a `clients:` profile's `match.name`) is matched against
 * names a client chooses (a tools/call's name, initialize's clientInfo.name), and picomatch's regular expression
 * backtracks about n^k steps for a glob of k stars: one tools/call whose 180 kB name repeats the glob's literals
 * (`get` x 60,000 against `*get*by*`) held the event loop ~10 s (a 600 kB one, 72 s), every other request of the
 * gateway waiting. Globs of `*`, `?` and plain characters are now matched by a walk linear in the name; a
 * glob of wider syntax is tried only on names of at most 1,024 characters.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

describe('regression: a glob key matched against a name a client chose', () => {
  // No timing assertion: a 600 kB name held the event loop ~72 s with the backtracking matcher, far past this
  // test's 30 s timeout, and takes milliseconds with the linear walk.
  it('a tools/call of a 600 kB name built against `*get*by*` does not stall the gateway', { timeout: 30_000 }, async () => {
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        const { id } = JSON.parse(body.toString('utf8')) as { id: number };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '{}' }] } }));
      });
    });
    const gateway = await startGateway(gatewayConfig([httpUpstream('remote', `${up.origin}/mcp`, { tools: { '*get*by*': { outputSchema: { type: 'object' } } } })]));
    const answer = await fetch(gateway.url('/remote/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get'.repeat(200_000), arguments: {} } }),
    });
    await answer.arrayBuffer();
    expect(answer.status).toBe(200);
    // And the key still governs a name it matches (the schema is served: the text's JSON becomes structuredContent).
    const governed = await fetch(gateway.url('/remote/mcp'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_user_by_id', arguments: {} } }),
    });
    expect(((await governed.json()) as { result: { structuredContent?: unknown } }).result.structuredContent).toEqual({});
  });
});
