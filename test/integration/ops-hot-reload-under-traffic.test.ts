/**
 * Hot reload under traffic: a real v1 SDK client keeps several tools/call streams (SSE) going through the
 * gateway while the config file flips between two versions and SIGHUP reloads it. No call fails, every
 * result carries one of the two versions' structuredContent, each swap is visible to the next call, and
 * after the last swap tools/list advertises the new schema — on the same session, which survived.
 */
import { describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { onTestFinished } from 'vitest';
import { startServe } from '../helpers/serve.js';
import { startV1Server } from '../helpers/v1-server.js';

const DATA = { city: 'Oslo', temperature: -3 };

/** Version 1 accepts any object; version 2 wraps the value as {reading: …} and requires it. */
function configText(url: string, version: 1 | 2): string {
  const tool =
    version === 1
      ? `outputSchema: { type: object, title: v1 }`
      : `outputSchema: { type: object, title: v2, properties: { reading: { type: object } }, required: [reading] }
        extract: { format: json, wrap: reading }`;
  return `
upstreams:
  up:
    url: ${url}
    tools:
      echo:
        ${tool}
`;
}

type Shape = 'v1' | 'v2';

function shapeOf(structured: unknown): Shape | 'other' {
  if (JSON.stringify(structured) === JSON.stringify(DATA)) return 'v1';
  if (JSON.stringify(structured) === JSON.stringify({ reading: DATA })) return 'v2';
  return 'other';
}

describe('hot reload under traffic', () => {
  it('flips between two configs with calls streaming: no errors, each swap seen by the next call, new schema listed', async () => {
    const upstream = await startV1Server();
    const gw = await startServe(configText(upstream.url, 1));
    const client = new Client({ name: 'reload-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${gw.origin}/up/mcp`));
    await client.connect(transport);
    onTestFinished(() => client.close());
    const session = transport.sessionId;

    // The client caches version 1's schema and validates every result against it (v2 results are objects too).
    const before = await client.listTools();
    expect(before.tools.find((t) => t.name === 'echo')?.outputSchema).toMatchObject({ title: 'v1' });

    const call = async (): Promise<Shape | 'other'> => {
      const result = await client.callTool({ name: 'echo', arguments: { text: JSON.stringify(DATA) } });
      expect(result.isError ?? false).toBe(false);
      return shapeOf(result.structuredContent);
    };

    // Background traffic: four loops calling until told to stop; every result is recorded.
    const seen: (Shape | 'other')[] = [];
    const failures: unknown[] = [];
    let stop = false;
    const loops = Array.from({ length: 4 }, async () => {
      while (!stop) {
        try {
          seen.push(await call());
        } catch (err) {
          failures.push(err);
        }
      }
    });

    try {
      for (const version of [2, 1, 2] as const) {
        gw.write(configText(upstream.url, version));
        const result = await gw.sighup();
        expect(result).toMatchObject({ ok: true, toolsChanged: ['up'], restartRequired: [] });
        // A call made after the swap sees the new generation.
        expect(await call()).toBe(version === 2 ? 'v2' : 'v1');
      }
    } finally {
      stop = true;
      await Promise.all(loops);
    }

    expect(failures).toEqual([]);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s === 'other')).toEqual([]);

    // Same session as before the reloads; it now lists (and validates against) version 2.
    expect(transport.sessionId).toBe(session);
    const after = await client.listTools();
    expect(after.tools.find((t) => t.name === 'echo')?.outputSchema).toMatchObject({ title: 'v2', required: ['reading'] });
    expect(await call()).toBe('v2');
  });
});
