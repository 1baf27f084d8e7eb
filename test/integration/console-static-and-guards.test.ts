/**
 * The console's routes and guards on a real gateway (buildApp, port 0): no /ui at all when the console is
 * off; the pages from the built directory (redirect, CSP, immutable assets, no way out of the assets
 * directory, 503 when the pages were never built); the API behind the gateway's bearer tokens while the pages
 * are not; writes refused when `ui.write` is off; peers that are not loopback refused unless `ui.remote`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildApp } from '../../src/app.js';
import { UI_DEFAULTS, type UiSettings } from '../../src/config/types.js';
import { createLogger } from '../../src/log.js';
import { createMetrics } from '../../src/metrics.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';

const UPSTREAM = httpUpstream('demo', 'http://127.0.0.1:9/mcp');

function builtPages(): string {
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-ui-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>console</title><script type="module" src="/ui/assets/app-3f2a1b.js"></script>');
  writeFileSync(join(dir, 'assets', 'app-3f2a1b.js'), 'export {};');
  writeFileSync(join(dir, 'secret.txt'), 'not an asset');
  return dir;
}

const ui = (settings: Partial<UiSettings>): UiSettings => ({ ...UI_DEFAULTS, enabled: true, ...settings });

async function code(response: Response): Promise<[number, string]> {
  return [response.status, ((await response.json()) as { error: { data: { code: string } } }).error.data.code];
}

describe('console routes', () => {
  it('do not exist when the console is off', async () => {
    for (const config of [gatewayConfig([UPSTREAM]), gatewayConfig([UPSTREAM], { ui: UI_DEFAULTS })]) {
      const gw = await startGateway(config);
      expect(await code(await fetch(gw.url('/ui')))).toEqual([404, 'RETROFIT_ERR_NOT_FOUND']);
      expect(await code(await fetch(gw.url('/ui/api/overview')))).toEqual([404, 'RETROFIT_ERR_NOT_FOUND']);
    }
  });

  it('serve the built pages, and nothing outside their assets', async () => {
    const gw = await startGateway(gatewayConfig([UPSTREAM], { ui: ui({}) }), { uiDir: builtPages() });
    const redirect = await fetch(gw.url('/ui'), { redirect: 'manual' });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/ui/');
    const page = await fetch(gw.url('/ui/'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await page.text()).toContain('<title>console</title>');
    const asset = await fetch(gw.url('/ui/assets/app-3f2a1b.js'));
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    for (const path of ['/ui/assets/..%2Fsecret.txt', '/ui/assets/%2e%2e/secret.txt', '/ui/assets/missing-1.js', '/ui/assets/.hidden.js']) {
      expect((await fetch(gw.url(path))).status, path).toBe(404);
    }
  });

  it('say so when the pages were never built', async () => {
    const gw = await startGateway(gatewayConfig([UPSTREAM], { ui: ui({}) }), { uiDir: join(tmpdir(), 'retrofit-ui-never-built') });
    expect(await code(await fetch(gw.url('/ui/')))).toEqual([503, 'RETROFIT_ERR_UI_NOT_BUILT']);
    // The API does not need the pages.
    expect((await fetch(gw.url('/ui/api/overview'))).status).toBe(200);
  });

  it('keep the API behind the bearer tokens, and refuse writes when ui.write is off', async () => {
    const gw = await startGateway(gatewayConfig([UPSTREAM], { ui: ui({}), auth: { bearerTokens: ['console-token-1234'] } }), { uiDir: builtPages() });
    expect((await fetch(gw.url('/ui/'))).status).toBe(200);
    expect(await code(await fetch(gw.url('/ui/api/overview')))).toEqual([401, 'RETROFIT_ERR_UNAUTHORIZED']);
    const authorization = 'Bearer console-token-1234';
    const overview = (await (await fetch(gw.url('/ui/api/overview'), { headers: { authorization } })).json()) as { write: boolean; csrf: string };
    expect(overview.write).toBe(false);
    const refused = await fetch(gw.url('/ui/api/learn/demo/apply'), { method: 'POST', headers: { authorization, 'content-type': 'application/json', 'x-retrofit-csrf': overview.csrf }, body: '{"tools":["x"]}' });
    expect(await code(refused)).toEqual([403, 'RETROFIT_ERR_UI_READ_ONLY']);
    // Not recording: no Learn page.
    expect(await code(await fetch(gw.url('/ui/api/learn/demo'), { headers: { authorization } }))).toEqual([404, 'RETROFIT_ERR_UI_NOT_FOUND']);
    expect(await code(await fetch(gw.url('/ui/api/upstreams/nope/tools'), { headers: { authorization } }))).toEqual([404, 'RETROFIT_ERR_UI_NOT_FOUND']);
  });

  it('end their event streams when the gateway closes', async () => {
    const gw = await startGateway(gatewayConfig([UPSTREAM], { ui: ui({}) }), { uiDir: builtPages() });
    const response = await fetch(gw.url('/ui/api/events'));
    const reader = response.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^event: tick\n/);
    await gw.app.close();
    expect((await reader.read()).done).toBe(true);
  });

  const external = Object.values(networkInterfaces()).flat().find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

  it.skipIf(external === undefined)('refuse a peer that is not loopback unless ui.remote', async () => {
    for (const remote of [false, true]) {
      const app = await buildApp(gatewayConfig([UPSTREAM], { ui: ui({ remote }), listen: { host: '0.0.0.0', port: 0 } }), { logger: createLogger({ level: 'silent' }), metrics: createMetrics({ defaultMetrics: false }) });
      onTestFinished(() => app.close());
      await app.listen({ host: '0.0.0.0', port: 0 });
      const { port } = app.server.address() as { port: number };
      const response = await fetch(`http://${external!}:${port}/ui/api/overview`);
      if (remote) expect(response.status).toBe(200);
      else expect(await code(response)).toEqual([403, 'RETROFIT_ERR_UI_REMOTE']);
      // The same gateway serves a loopback peer either way.
      expect((await fetch(`http://127.0.0.1:${port}/ui/api/overview`)).status).toBe(200);
    }
  });
});
