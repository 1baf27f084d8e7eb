/**
 * A real v1 SDK Client on Streamable HTTP, with elicitation answered and notifications recorded.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { onTestFinished } from 'vitest';

export interface V1Client {
  readonly client: Client;
  readonly transport: StreamableHTTPClientTransport;
  /** Logging notifications' data, in arrival order. */
  readonly logs: unknown[];
  /** Messages the server asked the user through elicitation. */
  readonly elicitations: string[];
}

export async function connectV1Client(url: string): Promise<V1Client> {
  const client = new Client({ name: 'v1-test-client', version: '1.0.0' }, { capabilities: { elicitation: {} } });
  const logs: unknown[] = [];
  const elicitations: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    elicitations.push(request.params.message);
    return { action: 'accept', content: { name: 'Ada' } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  onTestFinished(() => client.close());
  return { client, transport, logs, elicitations };
}
