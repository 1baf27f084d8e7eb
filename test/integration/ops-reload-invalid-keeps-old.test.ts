/**
 * An invalid config on reload: the gateway keeps serving the previous generation, logs every problem with
 * its FILE:LINE:COL, and counts the failure. Changes a reload cannot apply (listen, an added upstream, an
 * upstream's url) are reported as requiring a restart while the rest of the file applies.
 */
import { describe, expect, it } from 'vitest';
import { startServe } from '../helpers/serve.js';
import { startV1Server } from '../helpers/v1-server.js';

function configText(url: string, extra = '', schemaType = 'object'): string {
  return `
upstreams:
  up:
    url: ${url}
    tools:
      echo:
        outputSchema: { type: ${schemaType}, title: first }
${extra}`;
}

async function listEcho(origin: string): Promise<Record<string, unknown> | undefined> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(`${origin}/up/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id') ?? '';
  const list = await fetch(`${origin}/up/mcp`, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  const text = await list.text();
  const data = text.split('\n').find((l) => l.startsWith('data: '));
  const message = JSON.parse(data ? data.slice(6) : text) as { result: { tools: { name: string; outputSchema?: Record<string, unknown> }[] } };
  return message.result.tools.find((t) => t.name === 'echo')?.outputSchema;
}

describe('reloading an invalid config', () => {
  it('keeps the old config serving and logs each problem at its position', async () => {
    const upstream = await startV1Server();
    const gw = await startServe(configText(upstream.url));
    expect(await listEcho(gw.origin)).toMatchObject({ title: 'first' });

    // Two problems: a schema type that does not exist (line 7) and a misspelt top-level key (line 8).
    gw.write(configText(upstream.url, 'allowedOrigin: []\n', 'objekt'));
    const result = await gw.sighup();
    expect(result.ok).toBe(false);
    const problems = result.ok ? [] : result.problems;
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(new RegExp(`^${gw.file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:7:\\d+ `));
    expect(problems[1]).toMatch(/:8:1 .*allowedOrigin/);

    const rejected = gw.logs.filter((l) => l.msg?.startsWith('config reload rejected: '));
    expect(rejected.map((l) => l.problem)).toEqual(problems);
    expect(gw.logs.some((l) => l.msg === 'config reload failed; still serving the previous config')).toBe(true);
    expect(await listEcho(gw.origin)).toMatchObject({ title: 'first' });
    expect(await gw.handle.app.inject({ url: '/metrics' }).then((r) => r.body)).toContain('mcp_retrofit_config_reloads_total{result="failed"} 1');

    // A valid file with parts that need a restart: the rest applies, those parts are reported and kept.
    const other = await startV1Server();
    gw.write(`
listen: { port: 9999 }
upstreams:
  up:
    url: ${other.url}
    tools:
      echo:
        outputSchema: { type: object, title: second }
  extra:
    url: ${other.url}
`);
    const applied = await gw.sighup();
    expect(applied).toMatchObject({ ok: true, generation: 2, toolsChanged: ['up'] });
    expect(applied.ok && applied.restartRequired).toEqual([
      'listen changed (127.0.0.1:8080 kept)',
      'upstream "up": url changed (running values kept)',
      'upstream "extra" added (not served until restart)',
    ]);
    expect(gw.logs.filter((l) => typeof l.msg === 'string' && l.msg.endsWith('requires restart'))).toHaveLength(3);
    // Still proxied to the first upstream (url kept), with the new schema.
    expect(await listEcho(gw.origin)).toMatchObject({ title: 'second' });
    expect(upstream.sessions.size).toBe(3);
    expect(other.sessions.size).toBe(0);
    expect((await fetch(`${gw.origin}/extra/mcp`, { method: 'POST' })).status).toBe(404);
  });
});
