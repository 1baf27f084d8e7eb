/**
 * Regression: the console kept each success's structuredContent whole and weighed it as "its text again", so a
 * native result whose text is a word beside a large structuredContent (200 KiB) was kept at almost no weight:
 * 40 tools × 20 samples held 160 MiB against the documented 64 MiB budget. A structuredContent is now kept
 * within `ui.maxTextBytes` (its JSON), as the text is, and weighs its own size.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { startGateway } from '../helpers/gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { tempFiles } from '../unit/config/helpers.js';

const LARGE = { payload: 'p'.repeat(4_000) };

describe('regression: the console weighs the structuredContent it keeps', () => {
  it('keeps a short structuredContent beside its text, and none longer than ui.maxTextBytes', async () => {
    const up = await listen((req, res) => {
      void readBody(req).then((body) => {
        const m = JSON.parse(body.toString('utf8')) as { id?: number; method: string; params: { name?: string } };
        if (m.id === undefined) return void res.writeHead(202).end();
        const result =
          m.method === 'initialize'
            ? { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'u', version: '1' } }
            : { content: [{ type: 'text', text: 'ok' }], structuredContent: m.params.name === 'large' ? LARGE : { a: 1 } };
        res.writeHead(200, { 'content-type': 'application/json', ...(m.method === 'initialize' && { 'mcp-session-id': 'up-session' }) }).end(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }));
      });
    });
    const file = join(await tempFiles({}), 'gateway.yaml');
    await writeFile(file, `ui: { enabled: true, samples: 5, maxTextBytes: 1024 }
upstreams:
  remote:
    url: ${up.origin}/mcp
    tools:
      large: { outputSchema: { type: object } }
      small: { outputSchema: { type: object } }
`);
    const gateway = await startGateway(await loadConfig(file));
    let session: string | undefined;
    const post = async (message: object): Promise<void> => {
      const answer = await fetch(gateway.url('/remote/mcp'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', ...(session !== undefined && { 'mcp-session-id': session }) },
        body: JSON.stringify(message),
      });
      expect(answer.status).toBeLessThan(300);
      session ??= answer.headers.get('mcp-session-id') ?? undefined;
      await answer.arrayBuffer();
    };
    await post({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } });
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'large', arguments: {} } });
    await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'small', arguments: {} } });

    type Detail = { successes: { text: string | null; structuredContent: unknown }[] };
    const detail = async (tool: string): Promise<Detail> => (await (await fetch(gateway.url(`/ui/api/upstreams/remote/tools/${tool}`))).json()) as Detail;
    expect((await detail('small')).successes).toMatchObject([{ text: 'ok', structuredContent: { a: 1 } }]);
    expect((await detail('large')).successes).toMatchObject([{ text: 'ok', structuredContent: null }]);
  });
});
