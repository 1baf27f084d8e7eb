/**
 * Regression: a response that arrived after a config swap was rewritten with the NEW generation's policy,
 * although its request was sent under the old one. In-flight requests must finish on the config they started
 * on; requests sent after the swap use the new one.
 */
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { listen, readBody } from '../helpers/listen.js';
import { startServe } from '../helpers/serve.js';

function configText(url: string, version: 1 | 2): string {
  const extract = version === 1 ? '{ format: json }' : '{ format: json, wrap: reading }';
  return `
upstreams:
  up:
    url: ${url}
    tools:
      slow:
        outputSchema: { type: object }
        extract: ${extract}
`;
}

/** A raw upstream that answers each tools/call only when the test releases it. */
async function heldUpstream() {
  const held: { id: unknown; res: ServerResponse }[] = [];
  const waiters: (() => void)[] = [];
  const up = await listen((req, res) => {
    void readBody(req).then((body) => {
      const message = JSON.parse(body.toString()) as { id: unknown };
      held.push({ id: message.id, res });
      waiters.shift()?.();
    });
  });
  const arrived = (): Promise<void> => (held.length > 0 ? Promise.resolve() : new Promise((resolve) => waiters.push(resolve)));
  const release = (): void => {
    const next = held.shift()!;
    const body = JSON.stringify({ jsonrpc: '2.0', id: next.id, result: { content: [{ type: 'text', text: '{"x":1}' }] } });
    next.res.writeHead(200, { 'content-type': 'application/json' }).end(body);
  };
  return { url: `${up.origin}/mcp`, arrived, release };
}

async function call(origin: string, id: number): Promise<unknown> {
  const response = await fetch(`${origin}/up/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'slow', arguments: {} } }),
  });
  const body = (await response.json()) as { result: { structuredContent?: unknown } };
  return body.result.structuredContent;
}

describe('config reload with a request in flight', () => {
  it('answers the in-flight request with the old generation and later requests with the new one', async () => {
    const upstream = await heldUpstream();
    const gw = await startServe(configText(upstream.url, 1));

    const inFlight = call(gw.origin, 1);
    await upstream.arrived();
    gw.write(configText(upstream.url, 2));
    expect((await gw.sighup()).ok).toBe(true);
    upstream.release();
    expect(await inFlight).toEqual({ x: 1 });

    const after = call(gw.origin, 2);
    await upstream.arrived();
    upstream.release();
    expect(await after).toEqual({ reading: { x: 1 } });
  });
});
