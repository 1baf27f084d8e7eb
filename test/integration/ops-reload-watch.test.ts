/**
 * `serve --watch`: replacing the config file (write + rename, as editors and Kubernetes ConfigMaps do) reloads
 * it without a signal; the reload is logged with its trigger.
 */
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ReloadResult } from '../../src/reload/reloader.js';
import { startServe } from '../helpers/serve.js';
import { startV1Server } from '../helpers/v1-server.js';

const config = (url: string, title: string): string => `
upstreams:
  up:
    url: ${url}
    tools:
      echo: { outputSchema: { type: object, title: ${title} } }
`;

describe('serve --watch', () => {
  it('reloads when the config file is replaced', async () => {
    const upstream = await startV1Server();
    const gw = await startServe(config(upstream.url, 'one'), { args: ['--watch'], watchDebounceMs: 20 });
    expect(gw.logs.some((l) => l.msg === 'watching the config file for changes')).toBe(true);

    const reloaded = once(gw.handle.reloader, 'reload') as Promise<[ReloadResult, string]>;
    gw.write(config(upstream.url, 'two'));
    const [result, trigger] = await reloaded;
    expect(trigger).toBe('watch');
    expect(result).toMatchObject({ ok: true, toolsChanged: ['up'] });
    expect(gw.logs.find((l) => l.msg === 'config reloaded')).toMatchObject({ trigger: 'watch', generation: 2 });
  });
});
