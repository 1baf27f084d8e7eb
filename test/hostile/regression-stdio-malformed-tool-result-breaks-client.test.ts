/**
 * Regression: a stdio child answering tools/call with a result the SDK clients' CallToolResult schema refuses
 * (`isError: "yes"`, a content block that is not an object or has no string `type`, a text block whose text
 * is not a string, content that is not an array) had it passed on — for a tool with a configured schema too —
 * and the v1 client threw a schema error that said nothing of the upstream. Now such an answer gets the client
 * RETROFIT_ERR_UPSTREAM_PROTOCOL for that call, as any answer a strict client would drop: read on the event
 * loop, or, large, on the worker that retrofits it (a configured tool) or inspects it (a passthrough one).
 */
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { connectV1, startStdioGateway } from '../helpers/stdio-gateway.js';

// Each call names in its arguments the result the child answers with; `large` pads it past the worker's threshold.
const child = rawChild(`(m, out) => {
  if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [
    { name: 'typed', inputSchema: { type: 'object' } },
    { name: 'plain', inputSchema: { type: 'object' } },
  ] } });
  const { shape, large } = m.params.arguments;
  const text = JSON.stringify({ ok: true, pad: large ? 'x'.repeat(300 * 1024) : '' });
  const results = {
    'is-error-a-string': { content: [{ type: 'text', text }], isError: 'yes' },
    'block-without-type': { content: [{ text }] },
    'block-not-an-object': { content: [{ type: 'text', text }, 'x'] },
    'text-not-a-string': { content: [{ type: 'text', text: 9 }, { type: 'text', text }] },
    'content-a-string': { content: text },
    'fine': { content: [{ type: 'text', text }] },
  };
  out({ jsonrpc: '2.0', id: m.id, result: results[shape] });
}`);

const MALFORMED = ['is-error-a-string', 'block-without-type', 'block-not-an-object', 'text-not-a-string', 'content-a-string'];
const TOOLS = { typed: { outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } };

describe.each([
  ['an owned session', false],
  ['share mode', true],
])('regression: a malformed tools/call result from a stdio child, %s', (_label, share) => {
  it('gets the v1 client UPSTREAM_PROTOCOL for that call, configured tool or not, small or large', { timeout: 30_000 }, async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), tools: TOOLS, upstream: { share, timeoutMs: 120_000 } });
    const client = await connectV1(gateway.url, 'malformed');
    await client.listTools();
    for (const tool of ['typed', 'plain']) {
      for (const large of [false, true]) {
        for (const shape of MALFORMED) {
          const label = `${tool} ${shape}${large ? ' large' : ''}`;
          const failed = await client.callTool({ name: tool, arguments: { shape, large } }).then(() => undefined, (err: unknown) => err);
          expect(failed, label).toBeInstanceOf(McpError);
          expect((failed as McpError).code, label).toBe(-32002);
          expect((failed as McpError).data, label).toEqual({ code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' });
        }
        const fine = await client.callTool({ name: tool, arguments: { shape: 'fine', large } });
        expect(fine.isError, `${tool} fine`).toBeUndefined();
        if (tool === 'typed') expect(fine.structuredContent, 'typed fine').toMatchObject({ ok: true });
      }
    }
    expect(gateway.logs.filter((l) => l.msg === 'upstream answered with an invalid JSON-RPC response; the client gets an error')).toHaveLength(2 * 2 * MALFORMED.length);
  });
});
