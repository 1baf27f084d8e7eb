/**
 * Regression (share mode answered a later old client with the first client's revision): with `share: true`
 * the child is initialized once, by the first session, and later sessions are answered from its cached
 * InitializeResult. That answer was replayed as is, so a 2024-11-05 client after a 2025-06-18 one was told
 * 2025-06-18 (an SDK 1.10 client refuses to connect on it) and a 2025-03-26 client got outputSchema and
 * structuredContent, which its revision does not have. Each later session is now negotiated by the one rule
 * a dedicated child's answer goes through (src/protocol/negotiate.ts), over the revision the child speaks:
 * a later client is answered, listed and called exactly as it is through a dedicated child, while the child
 * keeps the revision it negotiated with the first client.
 */
import { describe, expect, it } from 'vitest';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as Sdk110Client } from 'sdk-1-10/client/index.js';
import { StreamableHTTPClientTransport as Sdk110Transport } from 'sdk-1-10/client/streamableHttp.js';
import { onTestFinished } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { watchIncoming } from '../../src/probe/list-tools.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

/** echo answers its text; configured as an integer, its result has a deterministic shape on every revision. */
const tools = { echo: { outputSchema: { type: 'integer' } } } as const;

/** What a client saw of its session: the InitializeResult, tools/list and tools/call of echo "42". */
interface Seen {
  readonly initialize: JsonObject;
  readonly list: JsonObject;
  readonly call: JsonObject;
}

/**
 * A real client asking for `revision`: SDK 1.10 for 2024-11-05 (its newest: it sends no MCP-Protocol-Version
 * header and refuses any answer newer than 2025-03-26); otherwise today's v1 SDK with its initialize's
 * `protocolVersion` rewritten on the way out (the v1 client always asks for its newest).
 */
async function session(url: string, revision: string): Promise<Seen> {
  const received: JsonObject[] = [];
  const see = (m: unknown): void => void received.push(structuredClone(m) as JsonObject);
  let client: { listTools(): Promise<unknown>; callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<unknown>; close(): Promise<void> };
  if (revision === '2024-11-05') {
    const transport = new Sdk110Transport(new URL(url));
    watchIncoming(transport as never, see);
    const c = new Sdk110Client({ name: 'old-client', version: '1.0.0' });
    onTestFinished(() => c.close());
    // The 1.10 transport's optional fields predate exactOptionalPropertyTypes; it is that release's own.
    await c.connect(transport as never);
    client = c;
  } else {
    const transport = new V1Transport(new URL(url));
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send('method' in message && message.method === 'initialize' ? { ...message, params: { ...message.params, protocolVersion: revision } } : message, options);
    watchIncoming(transport as never, see);
    const c = new V1Client({ name: `client-${revision}`, version: '1.0.0' });
    onTestFinished(() => c.close());
    await c.connect(transport);
    client = c;
  }
  await client.listTools();
  await client.callTool({ name: 'echo', arguments: { text: '42' } });
  const results = received.filter((m) => 'result' in m).map((m) => m.result as JsonObject);
  expect(results).toHaveLength(3);
  return { initialize: results[0]!, list: results[1]!, call: results[2]! };
}

const echoListed = (seen: Seen): JsonObject | undefined => (seen.list.tools as JsonObject[]).find((t) => t.name === 'echo');

describe('share mode: a later client is answered and shaped for its own revision, as through a dedicated child', () => {
  const cases = [
    // Older than the child's revision: the client's own revision, no structured output.
    { first: '2025-06-18', later: '2024-11-05', structured: false },
    { first: '2025-06-18', later: '2025-03-26', structured: false },
    // Newer than an old child's: bridged up, as a dedicated child of that revision is.
    { first: '2024-11-05', later: '2025-06-18', structured: true },
  ] as const;

  it.each(cases)('first client $first, later client $later', async ({ first, later, structured }) => {
    const shared = await startStdioGateway({ tools, upstream: { share: true } });
    const dedicated = await startStdioGateway({ tools });

    const a = await session(shared.url, first);
    expect(a.initialize.protocolVersion).toBe(first);
    const b = await session(shared.url, later);
    const alone = await session(dedicated.url, later);

    expect(b.initialize).toEqual(alone.initialize);
    expect(b.initialize.protocolVersion).toBe(later);
    expect(b.list).toEqual(alone.list);
    expect(b.call).toEqual(alone.call);
    if (structured) {
      expect(echoListed(b)?.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'integer' } }, required: ['result'] });
      expect(b.call.structuredContent).toEqual({ result: 42 });
    } else {
      expect(echoListed(b)).not.toHaveProperty('outputSchema');
      expect(b.call).not.toHaveProperty('structuredContent');
    }
    // The first session keeps its own shape; both were served by one child.
    expect(shared.routes.pids()).toHaveLength(1);
    const firstStructured = first >= '2025-06-18';
    expect(echoListed(a)?.outputSchema !== undefined).toBe(firstStructured);
    expect(a.call.structuredContent !== undefined).toBe(firstStructured);
    // The later session records the child's revision as its upstream's, and its own as the client's.
    const bridged = await shared.waitForLog((l) => l.msg === 'session bridged: the client is answered its own revision' && l.clientRevision === later);
    expect(bridged.upstreamRevision).toBe(first);
  });
});
