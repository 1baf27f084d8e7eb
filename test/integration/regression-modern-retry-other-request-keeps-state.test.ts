/**
 * A 2026-07-28 client's retry of a request that asked it for input must name the same method and target as the
 * request its requestState belongs to (src/http/front/modern.ts). One that did not was refused (-32602), but the
 * requestState was taken all the same: the right retry that followed got -32602 too, and the exchange, out of the
 * table of those waiting for their retry, could no longer give its pooled session up to a request that needed
 * it, holding it until timeoutMs. A mismatched retry now leaves the requestState good, as one whose
 * inputResponses are not results does.
 */
import { expect, it } from 'vitest';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };

/** A tool that asks its client to sample, then answers with what it got. */
const ON_REQUEST = `(m, out) => {
  if (m.method !== 'tools/call') return out({ jsonrpc: '2.0', id: m.id, result: {} });
  globalThis.onResponse = (r) => out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'sampled ' + r.result.content.text }] } });
  out({ jsonrpc: '2.0', id: 'ask-1', method: 'sampling/createMessage', params: { messages: [], maxTokens: 5 } });
}`;
/** rawChild hands responses to nobody: this one reads them. */
const CHILD = rawChild(ON_REQUEST).replace("if (m.id === undefined || typeof m.method !== 'string') return;", "if (typeof m.method !== 'string') return globalThis.onResponse?.(m); if (m.id === undefined) return;");

function call(url: string, id: number, name: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, ...extra, _meta: META } }),
  });
}

it('a retry naming another request is refused and leaves the requestState good for the right one', async () => {
  const gateway = await startStdioGateway({ args: rawArgs(CHILD) });
  const asked = (await (await call(gateway.url, 1, 'sample')).json()) as { result: { resultType: string; requestState: string; inputRequests: Record<string, unknown> } };
  expect(asked.result.resultType).toBe('input_required');
  const key = Object.keys(asked.result.inputRequests)[0]!;
  const inputResponses = { [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'yes' } } };
  const wrong = await call(gateway.url, 2, 'other', { requestState: asked.result.requestState, inputResponses });
  expect(wrong.status).toBe(400);
  expect(await wrong.json()).toMatchObject({ id: 2, error: { code: -32602, data: { code: 'RETROFIT_ERR_REQUEST_STATE' } } });
  // Still waiting for its retry (and so able to give its session up if another request needs it).
  expect(gateway.routes.counts!()).toMatchObject({ heldForRetry: 1 });
  const right = await call(gateway.url, 3, 'sample', { requestState: asked.result.requestState, inputResponses });
  expect(await right.json()).toMatchObject({ id: 3, result: { resultType: 'complete', content: [{ type: 'text', text: 'sampled yes' }] } });
});
