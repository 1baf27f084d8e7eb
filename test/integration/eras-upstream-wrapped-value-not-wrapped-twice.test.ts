import { describe, expect, it } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { connectEraClient } from '../helpers/eras-clients.js';
import { eraTool, startV2NativeServer } from '../helpers/eras-tools.js';
import { startGateway } from '../helpers/gateway.js';

/**
 * Regression: a configured non-object schema loose enough to accept `{result: X}` itself (here: any object
 * or array) over a modern upstream that wraps its values for 2025-era sessions. The gateway validated the
 * upstream's `{result: {a: 1}}` as the value and wrapped it again: `{result: {result: {a: 1}}}`, valid
 * against the wrapped schema, so the strict client accepted a value the tool never returned.
 */
describe('a loose configured schema over a value the upstream already wrapped', () => {
  const loose = { anyOf: [{ type: 'object' }, { type: 'array' }] };

  for (const revision of ['2025-11-25', '2025-06-18'] as const) {
    it(`${revision}: the client gets {result: V}, not {result: {result: V}}`, async () => {
      const upstream = await startV2NativeServer();
      const gw = await startGateway(gatewayConfig([httpUpstream('native', upstream.url, { tools: { shape: { outputSchema: loose } } })]));
      const client = await connectEraClient(gw.url('/native/mcp'), revision);
      await client.listTools();
      expect((await client.callTool('shape')).structuredContent).toEqual({ result: eraTool('shape').value });
    });
  }

  it('2026-07-28: the upstream does not wrap, and the value passes as is', async () => {
    const upstream = await startV2NativeServer();
    const gw = await startGateway(gatewayConfig([httpUpstream('native', upstream.url, { tools: { shape: { outputSchema: loose } } })]));
    const client = await connectEraClient(gw.url('/native/mcp'), '2026-07-28');
    await client.listTools();
    expect((await client.callTool('shape')).structuredContent).toEqual(eraTool('shape').value);
  });
});
