/**
 * Pooled sessions for 2026-07-28 clients are kept apart by the capabilities their upstream was initialized with
 * (src/protocol/modern.ts capabilityKey), but only by which of sampling / elicitation / roots were present: a
 * client that declared form elicitation and plain sampling was served on a session initialized for another
 * client's URL-only elicitation and sampling with tools, so the upstream would ask it in modes it lacks and
 * never in the one it has. What each capability allows keeps sessions apart now.
 */
import { expect, it } from 'vitest';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const MODERN = '2026-07-28';
/** A child that answers every call with the capabilities its session was initialized with. */
const CHILD = rawChild(
  `(m, out) => out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: JSON.stringify(globalThis.caps) }] } })`,
  `(m, out) => { globalThis.caps = m.params.capabilities; out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'caps', version: '1' } } }); }`,
);

it('a 2026-07-28 client is served on a session initialized with its own capabilities, modes included', async () => {
  const gateway = await startStdioGateway({ args: rawArgs(CHILD) });
  const sessionOf = async (capabilities: Record<string, unknown>): Promise<unknown> => {
    const res = await fetch(gateway.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'caps' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'caps', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': capabilities } } }),
    });
    return JSON.parse(((await res.json()) as { result: { content: [{ text: string }] } }).result.content[0].text);
  };
  const urlOnly = { elicitation: { url: {} }, sampling: { tools: {} } };
  const formOnly = { elicitation: { form: {} }, sampling: {} };
  expect(await sessionOf(urlOnly)).toEqual(urlOnly);
  expect(await sessionOf(formOnly)).toEqual(formOnly);
  // The same capabilities, members in another order: the first session again.
  expect(await sessionOf({ sampling: { tools: {} }, elicitation: { url: {} } })).toEqual(urlOnly);
  expect(gateway.routes.pids()).toHaveLength(2);
});
