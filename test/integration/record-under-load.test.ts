/**
 * Recording under load: 1,000 tools/call through the gateway in front of a real v1 SDK server over
 * Streamable HTTP (the proxied path), 50 at a time, with `record: {maxPerTool: 5, maxBytes: 512}`. Every
 * call is answered; each tool's directory holds at most maxPerTool files; and every result is accounted for:
 * written, or dropped and counted by reason (the 1 KiB answers as too_large; under load also queue_full, and
 * superseded for samples five newer ones of their tool wait behind). Latency with and without
 * recording is the bench's row (bench/scenarios/record.js).
 */
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { connectV1 } from '../helpers/stdio-gateway.js';
import { startV1Server } from '../helpers/v1-server.js';
import { tempFiles } from '../unit/config/helpers.js';

const CALLS = 1000;
const BIG_EVERY = 10;

function server(): McpServer {
  const s = new McpServer({ name: 'load', version: '1.0.0' });
  s.registerTool('echo', { inputSchema: { n: z.number() } }, async ({ n }) => ({ content: [{ type: 'text', text: JSON.stringify({ n }) }] }));
  s.registerTool('big', { inputSchema: { n: z.number() } }, async ({ n }) => ({ content: [{ type: 'text', text: `${n} ${'x'.repeat(1024)}` }] }));
  return s;
}

async function count(values: Promise<{ values: { labels: Record<string, string | number>; value: number }[] }>, labels: Record<string, string>): Promise<number> {
  const found = (await values).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x));
  return found?.value ?? 0;
}

it('1,000 calls: all answered, files bounded per tool, every result written or counted as a drop', async () => {
  const upstream = await startV1Server({ build: server });
  const dir = await tempFiles({});
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, JSON.stringify({ upstreams: { load: { url: upstream.url, record: { dir: 'rec', maxPerTool: 5, maxBytes: 512 }, tools: { echo: { outputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } } } } } }));
  const gw = await startGateway(await loadConfig(file));
  const client = await connectV1(gw.url('/load/mcp'), 'load');
  await client.listTools();

  const answers: unknown[] = [];
  for (let start = 0; start < CALLS; start += 50) {
    const batch = Array.from({ length: 50 }, (_, i) => start + i);
    answers.push(...(await Promise.all(batch.map((n) => client.callTool({ name: n % BIG_EVERY === 0 ? 'big' : 'echo', arguments: { n } })))));
  }
  expect(answers).toHaveLength(CALLS);
  // Recording never changes an answer: echo is still retrofitted.
  expect(answers[1]).toMatchObject({ structuredContent: { n: 1 } });
  await client.close();
  // The recorder writes what it still holds when the gateway closes.
  await gw.app.close();

  const root = join(dir, 'rec', 'load');
  expect((await readdir(join(root, 'echo'))).filter((f) => f.endsWith('.json'))).toHaveLength(5);
  await expect(readdir(join(root, 'big'))).rejects.toThrow(/ENOENT/);
  const bigs = CALLS / BIG_EVERY;
  const recorded = await count(gw.metrics.recorded.get(), { upstream: 'load' });
  const full = await count(gw.metrics.recordDrops.get(), { upstream: 'load', reason: 'queue_full' });
  const superseded = await count(gw.metrics.recordDrops.get(), { upstream: 'load', reason: 'superseded' });
  const failed = await count(gw.metrics.recordDrops.get(), { upstream: 'load', reason: 'write_failed' });
  expect(await count(gw.metrics.recordDrops.get(), { upstream: 'load', reason: 'too_large' })).toBe(bigs);
  expect(failed).toBe(0);
  expect(recorded + full + superseded).toBe(CALLS - bigs);
  expect(recorded).toBeGreaterThanOrEqual(5);
});
