/**
 * Real SDK clients at each protocol revision, recording every message they receive:
 * - v1 SDK (`@modelcontextprotocol/sdk` 1.32) negotiating its default 2025-11-25, or pinned to 2025-06-18 /
 *   2025-03-26. The v1 Client has no option for that: it always asks for LATEST_PROTOCOL_VERSION, so the
 *   transport rewrites the initialize request's `protocolVersion` on its way out; the server then answers
 *   with the older revision, and the client adopts it (header included) as it would with an old server.
 * - v2 SDK (`@modelcontextprotocol/client` 2.4) pinned to 2026-07-28 through `versionNegotiation`.
 */
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { onTestFinished } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { watchIncoming, type Watchable } from '../../src/probe/list-tools.js';

/** The revisions the proofs run, oldest last. */
export const CLIENT_REVISIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] as const;
export type ClientRevision = (typeof CLIENT_REVISIONS)[number];

/** What the proofs need of either SDK's client. */
export interface EraClient {
  readonly revision: ClientRevision;
  listTools(): Promise<JsonObject>;
  callTool(name: string): Promise<JsonObject>;
  /** Every JSON-RPC message the client received, in order, as parsed off the wire. */
  readonly received: JsonObject[];
  close(): Promise<void>;
}

type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Record what a transport hands to the client, whatever handler the client installs. */
function record(transport: Watchable): JsonObject[] {
  const received: JsonObject[] = [];
  watchIncoming(transport, (message) => received.push(structuredClone(message) as JsonObject));
  return received;
}

function isInitialize(message: JSONRPCMessage): message is JSONRPCMessage & { method: 'initialize'; params: Record<string, unknown> } {
  return 'method' in message && message.method === 'initialize';
}

function asJson(value: unknown): JsonObject {
  return value as JsonObject;
}

async function connectV1(url: string, revision: ClientRevision, fetchImpl?: FetchLike): Promise<EraClient> {
  const transport = new V1Transport(new URL(url), fetchImpl ? { fetch: fetchImpl } : {});
  if (revision !== '2025-11-25') {
    const send = transport.send.bind(transport);
    transport.send = (message, options) =>
      send(!Array.isArray(message) && isInitialize(message) ? { ...message, params: { ...message.params, protocolVersion: revision } } : message, options);
  }
  const received = record(transport as never);
  const client = new V1Client({ name: `v1-client-${revision}`, version: '1.0.0' });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return {
    revision,
    received,
    listTools: async () => asJson(await client.listTools()),
    callTool: async (name) => asJson(await client.callTool({ name, arguments: {} })),
    close: () => client.close(),
  };
}

async function connectV2(url: string, fetchImpl?: FetchLike): Promise<EraClient> {
  const transport = new V2Transport(new URL(url), fetchImpl ? { fetch: fetchImpl } : {});
  const received = record(transport as never);
  const client = new V2Client({ name: 'v2-client-2026', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return {
    revision: '2026-07-28',
    received,
    // The v2 client caches lists; the proofs want the wire every time.
    listTools: async () => asJson(await client.listTools(undefined, { cacheMode: 'refresh' })),
    callTool: async (name) => asJson(await client.callTool({ name, arguments: {} })),
    close: () => client.close(),
  };
}

/** A connected client at `revision` (v2 SDK for 2026-07-28, v1 SDK otherwise). */
export function connectEraClient(url: string, revision: ClientRevision, options: { fetch?: FetchLike } = {}): Promise<EraClient> {
  return revision === '2026-07-28' ? connectV2(url, options.fetch) : connectV1(url, revision, options.fetch);
}

/** The JSON-RPC results among the received messages (responses only, in order). */
export function resultsOf(received: readonly JsonObject[]): JsonObject[] {
  return received.filter((m) => 'result' in m).map((m) => m.result as JsonObject);
}
