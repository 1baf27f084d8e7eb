/**
 * A 2026-07-28 client in front of a stdio upstream (src/http/front/modern-exchange.ts): each request the upstream
 * makes of the client during a tools/call was held for the client's answers without a bound, so an upstream that
 * asked on and on (an elicitation/create flood, above all while the client was away between input_required and
 * its retry) grew the gateway's memory without end and handed the client one input_required of any size (21,000
 * requests, 6.8 MB, after 4 s of a raw child's flood). At most MAX_INPUT_REQUESTS are held; the others are
 * refused upstream at once, and the tool goes on with their errors.
 */
import { expect, it } from 'vitest';
import { MAX_INPUT_REQUESTS } from '../../src/http/front/modern-exchange.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const MODERN = '2026-07-28';
const ASKED = MAX_INPUT_REQUESTS + 36;
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} }, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };

/**
 * A child whose tool asks ASKED elicitations at once (one write) and answers the call, once every one of them is
 * answered, with how many were refused.
 */
const CHILD = `
  const out = (v) => process.stdout.write(JSON.stringify(v) + '\\n');
  let call, answered = 0, refused = 0;
  require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
    const m = JSON.parse(line);
    if (m.method === 'initialize') return out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'asker', version: '1' } } });
    if (m.method === 'tools/call') {
      call = m.id;
      const asks = [];
      for (let i = 0; i < ${ASKED}; i++) asks.push(JSON.stringify({ jsonrpc: '2.0', id: 'ask-' + i, method: 'elicitation/create', params: { message: 'q' + i, requestedSchema: { type: 'object', properties: {} } } }));
      return process.stdout.write(asks.join('\\n') + '\\n');
    }
    if (m.method === undefined && String(m.id).startsWith('ask-')) {
      answered += 1;
      if (m.error) refused += 1;
      if (answered === ${ASKED}) out({ jsonrpc: '2.0', id: call, result: { content: [{ type: 'text', text: 'refused ' + refused }] } });
    }
  });`;

function post(url: string, id: number, params: Record<string, unknown>): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'ask' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask', arguments: {}, ...params, _meta: META } }),
  });
}

it('holds at most MAX_INPUT_REQUESTS of an upstream\'s requests for the client; the rest are refused upstream at once', async () => {
  const gateway = await startStdioGateway({ args: ['-e', CHILD] });
  const first = (await (await post(gateway.url, 1, {})).json()) as { result: { resultType: string; requestState: string; inputRequests: Record<string, unknown> } };
  expect(first.result.resultType).toBe('input_required');
  const keys = Object.keys(first.result.inputRequests);
  expect(keys).toHaveLength(MAX_INPUT_REQUESTS);
  const inputResponses = Object.fromEntries(keys.map((k) => [k, { action: 'decline' }]));
  const done = (await (await post(gateway.url, 2, { requestState: first.result.requestState, inputResponses })).json()) as { result: unknown };
  expect(done.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: `refused ${ASKED - MAX_INPUT_REQUESTS}` }] });
  expect(gateway.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('the upstream asks more'))).toHaveLength(1);
});
