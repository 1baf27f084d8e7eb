/**
 * Regression: a stdio child answering tools/call with a result the SDK clients' CallToolResult schema refuses
 * (`isError: "yes"`, a content block that is not an object or has no string `type`, a text block whose text
 * is not a string, content that is not an array) had it passed on — for a tool with a configured schema too —
 * and the v1 client threw a schema error that said nothing of the upstream. Now such an answer gets the client
 * RETROFIT_ERR_UPSTREAM_PROTOCOL for that call, as any answer a strict client would drop: read on the event
 * loop, or, large, on the worker that retrofits it (a configured tool) or inspects it (a passthrough one).
 *
 * Then a block of a type the SDK clients' ContentBlock union does not have (`weird`), or one of its types
 * without what that type requires (a resource without `resource.uri`, an image without `data`, a base64 blob
 * atob refuses, a resource_link without `name`), still made the v1 client throw: now refused as well. A valid
 * block of each of the five types still passes, and the v2 client (2025-11-25 and 2026-07-28) takes them too.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it, onTestFinished } from 'vitest';
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
    'unknown-type': { content: [{ type: 'text', text }, { type: 'weird', text }] },
    'resource-without-uri': { content: [{ type: 'text', text }, { type: 'resource', resource: { text: 'x', mimeType: 'text/plain' } }] },
    'image-without-data': { content: [{ type: 'text', text }, { type: 'image', mimeType: 'image/png' }] },
    'blob-not-base64': { content: [{ type: 'text', text }, { type: 'resource', resource: { uri: 'file:///b', blob: 'not base64!' } }] },
    'link-without-name': { content: [{ type: 'text', text }, { type: 'resource_link', uri: 'file:///l' }] },
    'fine': { content: [{ type: 'text', text }] },
    'every-type': { content: [
      { type: 'text', text, annotations: { audience: ['user'], priority: 1, lastModified: '2025-01-02T03:04:05Z' } },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav', _meta: { k: 1 } },
      { type: 'resource', resource: { uri: 'file:///t', text: 'hello', mimeType: 'text/plain' } },
      { type: 'resource', resource: { uri: 'file:///b', blob: 'AAAA' } },
      { type: 'resource_link', uri: 'file:///l', name: 'l', size: 3, icons: [{ src: 'i.png', theme: 'light' }] },
    ] },
  };
  out({ jsonrpc: '2.0', id: m.id, result: results[shape] });
}`);

const MALFORMED = ['is-error-a-string', 'block-without-type', 'block-not-an-object', 'text-not-a-string', 'content-a-string', 'unknown-type', 'resource-without-uri', 'image-without-data', 'blob-not-base64', 'link-without-name'];
const VALID = ['fine', 'every-type'];
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
        for (const shape of VALID) {
          const fine = await client.callTool({ name: tool, arguments: { shape, large } });
          expect(fine.isError, `${tool} ${shape}`).toBeUndefined();
          expect(fine.content, `${tool} ${shape}`).toHaveLength(shape === 'fine' ? 1 : 6);
          if (tool === 'typed') expect(fine.structuredContent, `typed ${shape}`).toMatchObject({ ok: true });
        }
      }
    }
    expect(gateway.logs.filter((l) => l.msg === 'upstream answered with an invalid JSON-RPC response; the client gets an error')).toHaveLength(2 * 2 * MALFORMED.length);
  });
});

describe('regression: a valid tools/call result with a block of each type, through the gateway', () => {
  it('is taken by the v2 client too, at 2025-11-25 and at 2026-07-28', { timeout: 30_000 }, async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), tools: TOOLS });
    for (const pin of [undefined, '2026-07-28']) {
      const client = new ClientV2({ name: 'v2', version: '1.0.0' }, (pin === undefined ? {} : { versionNegotiation: { mode: { pin } } }) as never);
      onTestFinished(() => client.close());
      await client.connect(new TransportV2(new URL(gateway.url)));
      for (const tool of ['typed', 'plain']) {
        const result = await client.callTool({ name: tool, arguments: { shape: 'every-type', large: false } });
        const label = `${pin ?? 'default'} ${tool}`;
        expect(result.isError, label).not.toBe(true);
        expect((result.content as { type: string }[]).map((b) => b.type), label).toEqual(['text', 'image', 'audio', 'resource', 'resource', 'resource_link']);
      }
      // What the gateway refuses it refuses for this client as well, with the error that names the upstream.
      await expect(client.callTool({ name: 'plain', arguments: { shape: 'unknown-type', large: false } }), pin ?? 'default').rejects.toThrow('sent an invalid response');
    }
  });
});
