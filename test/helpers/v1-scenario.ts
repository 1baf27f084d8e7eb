/**
 * The scenario both v1 SDK integration tests run through the gateway (SSE-response and JSON-response mode).
 */
import { expect } from 'vitest';
import { connectV1Client } from './v1-client.js';

export interface ScenarioOptions {
  /** The gateway URL of the upstream's route. */
  readonly url: string;
  /**
   * Notifications and server→client requests related to a request travel on its SSE stream; in
   * JSON-response mode the v1 server has none and drops them, so only the SSE run checks them.
   */
  readonly streaming: boolean;
}

export async function runV1Scenario(options: ScenarioOptions): Promise<void> {
  const { client, transport, logs, elicitations } = await connectV1Client(options.url);
  const sessionId = transport.sessionId;
  expect(sessionId).toMatch(/[0-9a-f-]{36}/);
  expect(client.getServerVersion()).toEqual({ name: 'v1-test', version: '1.0.0' });

  const tools = await client.listTools();
  expect(tools.tools.map((t) => t.name)).toEqual(['echo', 'progress', 'log', 'ask']);
  expect(await client.callTool({ name: 'echo', arguments: { text: 'hi there' } })).toEqual({ content: [{ type: 'text', text: 'hi there' }] });

  const resources = await client.listResources();
  expect(resources.resources.map((r) => r.uri)).toEqual(['mem://greeting']);
  const read = await client.readResource({ uri: 'mem://greeting' });
  expect(read.contents[0]).toMatchObject({ text: 'hello from a resource' });

  const prompts = await client.listPrompts();
  expect(prompts.prompts.map((p) => p.name)).toEqual(['greet']);
  const prompt = await client.getPrompt({ name: 'greet', arguments: { name: 'Bob' } });
  expect(prompt.messages[0]?.content).toEqual({ type: 'text', text: 'Say hello to Bob' });

  await client.setLoggingLevel('info');
  await client.callTool({ name: 'log', arguments: { message: 'a log line' } });
  expect(logs).toEqual(options.streaming ? ['a log line'] : []);

  // Progress notifications must arrive before the result they belong to.
  const order: string[] = [];
  const done = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, {
    onprogress: (p) => void order.push(`progress ${p.progress}/${String(p.total)}`),
  });
  order.push('result');
  expect(done).toEqual({ content: [{ type: 'text', text: 'done 3' }] });
  expect(order).toEqual(options.streaming ? ['progress 1/3', 'progress 2/3', 'progress 3/3', 'result'] : ['result']);

  if (options.streaming) {
    const asked = await client.callTool({ name: 'ask', arguments: {} });
    expect(elicitations).toEqual(['your name?']);
    expect(asked).toEqual({ content: [{ type: 'text', text: 'hello Ada (accept)' }] });
  }

  // DELETE ends the session; the old id is then unknown upstream and the 404 passes through.
  await transport.terminateSession();
  expect(transport.sessionId).toBeUndefined();
  const stale = await fetch(options.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/list' }),
  });
  expect(stale.status).toBe(404);
  await stale.body?.cancel();
}
