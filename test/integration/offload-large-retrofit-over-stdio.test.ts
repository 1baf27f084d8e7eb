import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { compileUpstreamPolicy } from '../../src/policy/compile.js';
import { rewriteToolCall } from '../../src/retrofit/engine.js';
import { startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';
import { connectV1Client } from '../helpers/v1-client.js';

/**
 * A stdio child answering with 5 MB of text, retrofitted on the worker thread for a v1 client: the
 * structuredContent equals what the synchronous engine makes of it. A small answer the child writes after
 * the large one reaches the client after it too: its retrofit waits until the large one was delivered.
 */
const tools = { huge: { outputSchema: { type: 'string' } }, echo: { outputSchema: { type: 'string' } } } as const;
let gw: StdioGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe('a 5 MB stdio result retrofitted on the worker thread', () => {
  it('reaches the v1 client as the synchronous engine makes it, and the child order is kept', async () => {
    gw = await startStdioGateway({ tools, cwd: process.cwd() });
    const { client } = await connectV1Client(gw.url);
    await client.listTools();
    const bytes = 5_000_000;
    const big = client.callTool({ name: 'huge', arguments: { bytes } });
    // The small call is sent once the large answer is on the worker, so the child answers it second.
    await gw.waitForLog((l) => l.msg === 'retrofit offloaded to a worker');
    const small = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    const large = await big;

    const upstream: JsonObject = { content: [{ type: 'text', text: 'x'.repeat(bytes) }] };
    const policy = compileUpstreamPolicy(gw.upstream, { onInvalid: 'error', legacyRoots: 'wrap', coerce: true }).policy;
    const expected = rewriteToolCall(upstream, 'huge', policy, '2025-11-25').result;
    expect(large.structuredContent).toEqual(expected.structuredContent);
    expect((large.structuredContent as { result: string }).result).toHaveLength(bytes);
    expect(small.structuredContent).toEqual({ result: 'hi' });

    expect(await gw.metrics.offloads.get()).toMatchObject({ values: [{ labels: { result: 'worker' }, value: 1 }] });
    // The small answer's retrofit ran only after the large one was delivered (its line waited its turn).
    const order = gw.logs.filter((l) => l.msg === 'retrofit').map((l) => l.tool);
    expect(order).toEqual(['huge', 'echo']);
  });
});
