/** The config keys of DNS-rebinding protection (`allowedHosts`) and OAuth (`publicUrl`): loaded, and checked. */
import { describe, expect, it } from 'vitest';
import { load, problemsOf } from './helpers.js';

describe('allowedHosts and publicUrl', () => {
  it('are loaded (allowedHosts defaults to an empty list; publicUrl only where set)', async () => {
    const { loaded } = await load(
      'allowedHosts: [mcp.example.com, "*.svc.cluster.local", "[::1]:8080"]\nupstreams:\n  a:\n    url: http://127.0.0.1:9000/mcp\n    publicUrl: https://mcp.example.com/a/mcp\n  b:\n    sse: http://127.0.0.1:9100/sse\n',
    );
    expect(loaded.config.allowedHosts).toEqual(['mcp.example.com', '*.svc.cluster.local', '[::1]:8080']);
    expect(loaded.config.upstreams['a']).toMatchObject({ kind: 'http', publicUrl: 'https://mcp.example.com/a/mcp' });
    expect(loaded.config.upstreams['b']).not.toHaveProperty('publicUrl');
    expect((await load('upstreams:\n  a:\n    url: http://127.0.0.1:9000/mcp\n')).loaded.config.allowedHosts).toEqual([]);
  });

  it('reject a URL in allowedHosts, publicUrl on a stdio upstream, and a publicUrl that is no http(s) URL', async () => {
    const messages = async (yaml: string): Promise<string[]> => (await problemsOf(yaml)).problems.map((p) => p.message);
    expect(await messages('allowedHosts: ["https://mcp.example.com"]\nupstreams:\n  a:\n    url: http://127.0.0.1:9000/mcp\n')).toEqual([
      expect.stringContaining('must be a host name or IP address'),
    ]);
    expect(await messages('upstreams:\n  a:\n    command: node\n    publicUrl: https://mcp.example.com/a\n')).toEqual([expect.stringContaining('`publicUrl` is only for url and sse upstreams')]);
    expect(await messages('upstreams:\n  a:\n    url: http://127.0.0.1:9000/mcp\n    publicUrl: mcp.example.com/a\n')).toEqual([expect.stringContaining('must be an http:// or https:// URL')]);
  });
});
