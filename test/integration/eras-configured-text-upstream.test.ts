import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { CLIENT_REVISIONS, connectEraClient, type ClientRevision } from '../helpers/eras-clients.js';
import { expectEraShape, expectOnlyRetrofitDiffers, runSession, type LegacyRootsMode } from '../helpers/eras-expect.js';
import { configuredTools } from '../helpers/eras-tools.js';
import { startV1TextServer, startV2TextServer } from '../helpers/eras-tools.js';
import { requestLines, startGateway } from '../helpers/gateway.js';

/**
 * Configured schemas (array, scalar, recursive $defs, anyOf and object roots) on upstreams that answer JSON
 * text only. The v1 SDK server cannot speak 2026-07-28 (the gateway does not translate revisions), so the
 * 2026-07-28 client meets a text-only v2 SDK server; the v1 clients meet both.
 */
const UPSTREAMS = {
  v1: { start: startV1TextServer, revisions: CLIENT_REVISIONS.filter((r) => r !== '2026-07-28') },
  v2: { start: startV2TextServer, revisions: CLIENT_REVISIONS },
} as const;

async function proxied(kind: keyof typeof UPSTREAMS, legacyRoots: LegacyRootsMode) {
  const upstream = await UPSTREAMS[kind].start();
  const config = gatewayConfig([httpUpstream('up', upstream.url, { tools: configuredTools() })], {
    defaults: { onInvalid: 'error', legacyRoots, coerce: true },
  });
  const gw = await startGateway(config);
  return { upstream, gw, url: gw.url('/up/mcp') };
}

describe('configured schemas on a text-only upstream, through the gateway, for every revision', () => {
  for (const kind of ['v1', 'v2'] as const) {
    for (const revision of UPSTREAMS[kind].revisions as readonly ClientRevision[]) {
      it(`${kind} upstream, ${revision} client: listTools/callTool succeed with the contract's shape; only the retrofit differs from direct`, async () => {
        const { upstream, gw, url } = await proxied(kind, 'wrap');
        const client = await connectEraClient(url, revision);
        const session = await runSession(client);
        expectEraShape(session, revision, 'wrap');

        // The gateway governed each request by the revision the client really speaks.
        const lines = requestLines(gw.logs).filter((l) => l.method === 'tools/call' || l.method === 'tools/list');
        expect(lines.length).toBeGreaterThan(0);
        expect(new Set(lines.map((l) => l.revision))).toEqual(new Set([revision]));

        const direct = await connectEraClient(upstream.url, revision);
        await runSession(direct);
        expectOnlyRetrofitDiffers(client, direct);
      });
    }

    for (const revision of ['2025-11-25', '2025-06-18'] as const) {
      it(`${kind} upstream, ${revision} client, legacyRoots: drop: non-object schemas and their structuredContent removed, JSON left in text`, async () => {
        const { url } = await proxied(kind, 'drop');
        const client = await connectEraClient(url, revision);
        expectEraShape(await runSession(client), revision, 'drop');
      });
    }
  }
});
