/**
 * Server→client requests over a stdio upstream: server-everything asks the client for sampling in the
 * middle of a tool call; the request reaches the client on that call's stream, the client's answer (a
 * POSTed response) goes back to the child, and the call completes. A cancelled call releases its stream
 * and the session keeps working.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { connectV1, EVERYTHING_SERVER, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

describe('stdio upstream: server→client requests and cancellation', () => {
  it('relays a sampling request to the client and its answer back to the child', async () => {
    const gateway = await startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'] });
    const client = new Client({ name: 'sampler', version: '1.0.0' }, { capabilities: { sampling: {} } });
    onTestFinished(() => client.close());
    const asked: unknown[] = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      asked.push(request.params.messages);
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled by the test client' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(gateway.url)));
    const result = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'weather?', maxTokens: 5 } });
    expect(asked).toEqual([[{ role: 'user', content: { type: 'text', text: 'Resource trigger-sampling-request context: weather?' } }]]);
    expect(firstText(result)).toContain('sampled by the test client');
  });

  it('releases a cancelled call and keeps the session', async () => {
    const gateway = await startStdioGateway();
    const client = await connectV1(gateway.url, 'canceller');
    const controller = new AbortController();
    const blocked = client.callTool({ name: 'block', arguments: {} }, undefined, { signal: controller.signal });
    const rejected = expect(blocked).rejects.toThrow();
    await gateway.waitForLog((l) => l.line === 'blocking');
    controller.abort('changed my mind');
    await rejected;
    await gateway.waitForLog((l) => l.msg === 'request cancelled by the client; its stream released');
    expect(firstText(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('still here');
    expect(gateway.routes.sessions()).toBe(1);
  });
});
