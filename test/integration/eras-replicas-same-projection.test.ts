import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { CLIENT_REVISIONS, connectEraClient } from '../helpers/eras-clients.js';
import { expectEraShape, runSession } from '../helpers/eras-expect.js';
import { configuredTools, startV1TextServer, startV2TextServer } from '../helpers/eras-tools.js';
import { requestLines, startGateway, type TestGateway } from '../helpers/gateway.js';

/**
 * Two gateway replicas behind a round-robin balancer: the initialize lands on one, later requests alternate.
 * The replica that never saw the session's InitializeResult must project exactly like the one that did,
 * because the MCP-Protocol-Version header (sent by every client since 2025-06-18, and by the v1 SDK for
 * every revision) is enough: no sticky state.
 */
function roundRobin(replicas: readonly TestGateway[]): (url: string | URL, init?: RequestInit) => Promise<Response> {
  let next = 0;
  return (url, init) => {
    const target = new URL(url);
    target.host = new URL(replicas[next++ % replicas.length]!.origin).host;
    return fetch(target, init);
  };
}

describe('two gateway replicas with the same config', () => {
  for (const revision of CLIENT_REVISIONS) {
    it(`${revision} client alternating between replicas sees what a client of one replica sees`, async () => {
      const upstream = revision === '2026-07-28' ? await startV2TextServer() : await startV1TextServer();
      const config = gatewayConfig([httpUpstream('up', upstream.url, { tools: configuredTools() })]);
      const a = await startGateway(config);
      const b = await startGateway(config);

      const balanced = await connectEraClient(a.url('/up/mcp'), revision, { fetch: roundRobin([a, b]) });
      const session = await runSession(balanced);
      expectEraShape(session, revision, 'wrap');

      const single = await connectEraClient(a.url('/up/mcp'), revision);
      await runSession(single);
      expect(balanced.received).toEqual(single.received);

      // Both replicas served tool calls, each governed by the client's revision.
      for (const replica of [a, b]) {
        const calls = requestLines(replica.logs).filter((l) => l.method === 'tools/call');
        expect(calls.length).toBeGreaterThan(0);
        expect(new Set(calls.map((l) => l.revision))).toEqual(new Set([revision]));
      }
    });
  }
});
