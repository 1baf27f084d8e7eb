import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import type { PendingRequest, Rewriter } from '../../src/pipeline/rewrite.js';
import type { ToolConfig } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';

interface Msg {
  id?: number;
  method: string;
  params?: { name?: string; taskId?: string };
}

function answer(m: Msg): object {
  if (m.method === 'tools/call' && m.params?.name === 'slow') return { jsonrpc: '2.0', id: m.id, result: { task: { taskId: 'task-7', status: 'working' } } };
  if (m.method === 'tasks/result') return { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'finally' }] } };
  return { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.method }] } };
}

describe('tasks/result and JSON-RPC batches', () => {
  it('hands tasks/result to the rewriter with the tool that created the task, and matches each response of a batch', async () => {
    const upstream = await listen((req, res) => {
      void readBody(req).then((body) => {
        const parsed = JSON.parse(body.toString()) as Msg | Msg[];
        const out = Array.isArray(parsed) ? parsed.filter((m) => m.id !== undefined).map(answer) : answer(parsed);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
      });
    });
    const seen: PendingRequest[] = [];
    const rewriter: Rewriter = {
      needsRewrite: (method) => method === 'tools/call' || method === 'tasks/result',
      respond: (request, input) => {
        const message = input.message!;
        seen.push(request);
        return { kind: 'message', original: message, message: { ...message, result: { ...(message.result as JsonObject), by: `${request.method}:${request.tool ?? '-'}` } } };
      },
      reshape: () => undefined,
      inspect: () => undefined,
      demux: () => undefined,
      leavesUnread: () => false,
      passedUnread: () => {},
      projectNative: () => undefined,
      prepare: () => {},
      close: async () => {},
    };
    // Configured tools: their answers are always read (a tool without a schema is read only when it has structuredContent).
    const tools: Record<string, ToolConfig> = { slow: { outputSchema: { type: 'object' } }, a: { outputSchema: { type: 'object' } }, b: { outputSchema: { type: 'object' } } };
    const gw = await startGateway(gatewayConfig([httpUpstream('up', `${upstream.origin}/mcp`, { tools })]), { rewriter });
    const post = async (body: unknown) =>
      (await fetch(gw.url('/up/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'S' },
        body: JSON.stringify(body),
      }).then((r) => r.json())) as unknown;

    expect(await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow' } })).toMatchObject({ result: { task: { taskId: 'task-7' }, by: 'tools/call:slow' } });
    expect(await post({ jsonrpc: '2.0', id: 2, method: 'tasks/result', params: { taskId: 'task-7' } })).toMatchObject({ result: { by: 'tasks/result:slow' } });

    const batch = await post([
      { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'a' } },
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: {} },
      { jsonrpc: '2.0', id: 11, method: 'resources/list' },
      { jsonrpc: '2.0', id: 12, method: 'tools/call', params: { name: 'b' } },
    ]);
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: 10, result: { content: [{ type: 'text', text: 'tools/call' }], by: 'tools/call:a' } },
      { jsonrpc: '2.0', id: 11, result: { content: [{ type: 'text', text: 'resources/list' }] } },
      { jsonrpc: '2.0', id: 12, result: { content: [{ type: 'text', text: 'tools/call' }], by: 'tools/call:b' } },
    ]);
    expect(seen.map((r) => r.tool)).toEqual(['slow', 'slow', 'a', 'b']);
  });
});
