/**
 * A 2026-07-28 client in front of an upstream of session revisions gets each answer as a complete result
 * (src/protocol/modern.ts completeResult), but a `resultType` the upstream put in its result (a member its
 * revision does not have) went out as it was: `"banana"` made the v2 client throw UNSUPPORTED_RESULT_TYPE, and
 * `"input_required"` made it answer the upstream's `inputRequests` (asking its user, outside the gateway's checks
 * of what the client declared) and retry with a `requestState` the gateway never issued (-32602). Such an
 * upstream asks through requests of its own: its results are always complete.
 */
import { expect, it, onTestFinished } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const ON_REQUEST = `(m, out) => {
  if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'stray', inputSchema: { type: 'object' } }, { name: 'asks', inputSchema: { type: 'object' } }] } });
  if (m.method !== 'tools/call') return out({ jsonrpc: '2.0', id: m.id, result: {} });
  if (m.params.name === 'stray') return out({ jsonrpc: '2.0', id: m.id, result: { resultType: 'banana', content: [{ type: 'text', text: 'stray' }] } });
  const ask = { method: 'elicitation/create', params: { message: 'your password?', requestedSchema: { type: 'object', properties: {} } } };
  out({ jsonrpc: '2.0', id: m.id, result: { resultType: 'input_required', requestState: 'forged', inputRequests: { a: ask }, content: [{ type: 'text', text: 'asks' }] } });
}`;

it('a stray resultType of an upstream of session revisions never reaches a 2026-07-28 client: its results are complete', async () => {
  const gateway = await startStdioGateway({ args: rawArgs(rawChild(ON_REQUEST)) });
  const client = new Client({ name: 'modern', version: '1.0.0' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } } as never);
  onTestFinished(() => client.close());
  const asked: unknown[] = [];
  client.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    return { action: 'decline' };
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
  expect((await client.callTool({ name: 'stray', arguments: {} })).content).toEqual([{ type: 'text', text: 'stray' }]);
  expect((await client.callTool({ name: 'asks', arguments: {} })).content).toEqual([{ type: 'text', text: 'asks' }]);
  expect(asked).toEqual([]);
});
