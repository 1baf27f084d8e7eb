/**
 * A session client of a 2026-07-28-only upstream gets its server stream from a `subscriptions/listen` the
 * gateway holds upstream (src/upstream/modern-link.ts), opened again with backoff when the upstream ends it. The
 * backoff was reset by every stream the upstream accepted, so one that accepted and ended each at once was asked
 * again every second for as long as the session lasted (one POST a second per session, 256 sessions). Only a
 * stream that held for a while resets it now.
 */
import { expect, it, onTestFinished, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { MODERN, writeJson } from '../helpers/raw-modern.js';

it('a listen stream the upstream ends at once is opened again ever later', async () => {
  const listens: number[] = [];
  const { origin } = await listen((req, res) => {
    void readBody(req).then((body) => {
      const m = JSON.parse(body.toString('utf8')) as { id?: string | number; method: string };
      if (m.method === 'initialize') return writeJson(res, 400, { jsonrpc: '2.0', id: m.id, error: { code: -32022, message: 'unsupported', data: { supported: [MODERN] } } });
      if (m.id === undefined) return void res.writeHead(202).end();
      if (m.method === 'server/discover') return writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', supportedVersions: [MODERN], capabilities: { tools: { listChanged: true } } } });
      if (m.method === 'subscriptions/listen') {
        listens.push(performance.now());
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        return void res.end();
      }
      writeJson(res, 200, { jsonrpc: '2.0', id: m.id, result: { resultType: 'complete', tools: [] } });
    });
  });
  const gw = await startGateway(gatewayConfig([httpUpstream('modern', `${origin}/mcp`)]));
  const client = new Client({ name: 'v1', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.url('/modern/mcp'))));
  // The first stream, then two more: after 1 s, then after 2 s (before: 1 s each, for ever).
  await vi.waitFor(() => expect(listens.length).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 100 });
  const [first, second, third] = listens as [number, number, number];
  expect(second - first).toBeGreaterThanOrEqual(900);
  expect(third - second).toBeGreaterThanOrEqual(1800);
});
