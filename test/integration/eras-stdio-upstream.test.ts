import { describe, expect, it } from 'vitest';
import { STATELESS_DEFAULTS, type StdioUpstreamConfig } from '../../src/config/types.js';
import { gatewayConfig } from '../helpers/config.js';
import { connectEraClient } from '../helpers/eras-clients.js';
import { startGateway } from '../helpers/gateway.js';
import { FIXTURE_SERVER } from '../helpers/stdio-gateway.js';

/**
 * The stdio bridge projects by era too: the gateway owns these sessions, so the revision comes from the
 * child's InitializeResult and the client's header. A text-only v1 SDK child (the stdio fixture) answers
 * `pid` with an integer and `recall` with a JSON array; both get configured non-object schemas.
 * (The test config's file lives in no real directory, so the child's cwd is set.)
 */
const tools = {
  pid: { outputSchema: { type: 'integer' } },
  recall: { outputSchema: { type: 'array', items: { type: 'string' } } },
} as const;

function fixture(legacyRoots: 'wrap' | 'drop'): StdioUpstreamConfig {
  return { kind: 'stdio', name: 'child', path: '/child/mcp', timeoutMs: 10_000, tools: { ...tools, recall: { ...tools.recall, legacyRoots } }, command: process.execPath, args: [FIXTURE_SERVER], env: {}, cwd: process.cwd(), bridge: true, share: false, idleTimeoutMs: 900_000, maxSessions: 32, stateless: STATELESS_DEFAULTS, stderr: 'debug' };
}

describe('a stdio upstream with configured non-object schemas, by revision', () => {
  for (const revision of ['2025-11-25', '2025-06-18', '2025-03-26'] as const) {
    it(`${revision} client: listTools/callTool succeed with the contract's shape`, async () => {
      const gw = await startGateway(gatewayConfig([fixture('wrap')]));
      const client = await connectEraClient(gw.url('/child/mcp'), revision);
      const list = (await client.listTools()).tools as { name: string; outputSchema?: unknown }[];
      const pid = await client.callTool('pid');
      const recall = await client.callTool('recall');
      const listedPid = list.find((t) => t.name === 'pid');
      const value = Number((pid.content as { text: string }[])[0]!.text);
      expect(Number.isInteger(value)).toBe(true);
      if (revision === '2025-03-26') {
        expect(listedPid).not.toHaveProperty('outputSchema');
        expect(pid).not.toHaveProperty('structuredContent');
        expect(recall).not.toHaveProperty('structuredContent');
      } else {
        expect(listedPid?.outputSchema).toEqual({ type: 'object', properties: { result: { type: 'integer' } }, required: ['result'] });
        expect(pid.structuredContent).toEqual({ result: value });
        expect(recall.structuredContent).toEqual({ result: [] });
      }
      expect(recall.content).toEqual([{ type: 'text', text: '[]' }]);
      // The bridge governed the later requests by the header the client sends with its revision.
      const metric = await gw.metrics.registry.getSingleMetricAsString('mcp_retrofit_protocol_revisions_total');
      expect(metric).toMatch(new RegExp(`\\{upstream="child",revision="${revision}",source="header"\\} [1-9]`));
    });
  }

  it('legacyRoots: drop on one tool: that tool loses schema and structuredContent for a 2025-11-25 client, the other is wrapped', async () => {
    const gw = await startGateway(gatewayConfig([fixture('drop')]));
    const client = await connectEraClient(gw.url('/child/mcp'), '2025-11-25');
    const list = (await client.listTools()).tools as { name: string; outputSchema?: unknown }[];
    expect(list.find((t) => t.name === 'recall')).not.toHaveProperty('outputSchema');
    expect(list.find((t) => t.name === 'pid')).toHaveProperty('outputSchema.properties.result', { type: 'integer' });
    expect(await client.callTool('recall')).toEqual({ content: [{ type: 'text', text: '[]' }] });
    expect((await client.callTool('pid')).structuredContent).toHaveProperty('result');
  });
});
