import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { CLIENT_REVISIONS, connectEraClient, resultsOf } from '../helpers/eras-clients.js';
import { expectEraShape, expectOnlyRetrofitDiffers, runSession } from '../helpers/eras-expect.js';
import { configuredTools, startV2NativeServer, type EraTool } from '../helpers/eras-tools.js';
import { startGateway } from '../helpers/gateway.js';
import type { JsonObject } from '../../src/json.js';

/**
 * Schemas a v2 SDK server declares itself (no tools config at all), structuredContent with no text content.
 * For object-only clients the v2 server wraps non-object roots on its own; the gateway must neither wrap
 * them twice nor lose the text block the contract asks for.
 */
function withoutDialect(schema: unknown): unknown {
  if (typeof schema !== 'object' || schema === null) return schema;
  const { $schema: _dialect, ...rest } = schema as JsonObject;
  return rest;
}

/** The v2 server's own wrapping repeats `$schema` inside `result`; otherwise it is the contract's. */
function sameWrapping(actual: unknown, expected: JsonObject, tool: EraTool): void {
  if (tool.objectRoot || expected === tool.schema) {
    expect(withoutDialect(actual)).toEqual(withoutDialect(expected));
    return;
  }
  const got = actual as JsonObject;
  const inner = (got.properties as JsonObject).result;
  expect({ ...got, properties: { result: withoutDialect(inner) } }).toEqual(expected);
}

describe('schemas declared natively by a v2 SDK upstream, through the gateway, for every revision', () => {
  for (const revision of CLIENT_REVISIONS) {
    it(`${revision} client: listTools/callTool succeed with the contract's shape; only the retrofit differs from direct`, async () => {
      const upstream = await startV2NativeServer();
      const gw = await startGateway(gatewayConfig([httpUpstream('native', upstream.url)]));
      const client = await connectEraClient(gw.url('/native/mcp'), revision);
      expectEraShape(await runSession(client), revision, 'wrap', sameWrapping, revision !== '2026-07-28');

      const direct = await connectEraClient(upstream.url, revision);
      await runSession(direct);
      expectOnlyRetrofitDiffers(client, direct);
      if (revision === '2026-07-28') {
        // The 2026-07-28 result fields survive: resultType and _meta on every result, ttlMs/cacheScope on lists.
        const results = resultsOf(client.received);
        for (const result of results) expect(result).toMatchObject({ resultType: 'complete', _meta: expect.any(Object) });
        expect(results.find((r) => Array.isArray(r.tools))).toMatchObject({ ttlMs: expect.any(Number), cacheScope: expect.any(String) });
      }
    });
  }

  for (const revision of CLIENT_REVISIONS) {
    it(`${revision} client, the same schemas also configured: the configured ones win, and the upstream's own {result: V} is not wrapped twice`, async () => {
      const upstream = await startV2NativeServer();
      const gw = await startGateway(gatewayConfig([httpUpstream('native', upstream.url, { tools: configuredTools() })]));
      const client = await connectEraClient(gw.url('/native/mcp'), revision);
      expectEraShape(await runSession(client), revision, 'wrap');
    });
  }

  for (const revision of ['2025-11-25', '2025-06-18'] as const) {
    it(`${revision} client, legacyRoots: drop: the upstream's own wrapping of non-object roots is recognised and dropped, JSON left in text`, async () => {
      const upstream = await startV2NativeServer();
      const config = gatewayConfig([httpUpstream('native', upstream.url)], { defaults: { onInvalid: 'error', legacyRoots: 'drop', coerce: true } });
      const gw = await startGateway(config);
      const client = await connectEraClient(gw.url('/native/mcp'), revision);
      expectEraShape(await runSession(client), revision, 'drop', sameWrapping, true);
    });
  }
});
