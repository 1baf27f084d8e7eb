/**
 * Scenario 10 — what the operator console costs (issue 28). Scenario 1's retrofitted tools/call load (raw
 * upstream, JSON, a small result typed by `tools:`) through two gateways of this build in the same rounds: one
 * with `ui: { enabled: true }` and a real browser (Debian's chromium, driven by playwright-core) watching that
 * tool's page live (at nice 19: see watch()), one with the console off. Reported: gateway CPU per exchange,
 * on ÷ off (target ≤ 1.05×), and throughput. Without a chromium executable the row is skipped with the reason.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { autocannon, toolCall } from '../lib/load.js';
import { scratch, startGateway, startUpstream } from '../lib/servers.js';
import { cpuMs, median } from '../lib/sys.js';
import { fmt, ratio, row, skipped } from '../lib/table.js';
import { OBJECT_SCHEMA } from '../lib/data.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const NAME = '10 operator console on, one browser watching the tool page live, vs off: gateway CPU per exchange';

/**
 * The browser, open on the tool's page of `address`. It runs at the lowest CPU priority (`nice -n 19`, which its
 * renderers inherit): an operator's browser runs on the operator's machine, not on the gateway's two cores,
 * so here it may take only what the load leaves idle, and what is measured is the gateway's own cost of
 * serving it (the API reads, the event stream, the ledger on every call).
 */
async function watch(address) {
  const { chromium } = await import('playwright-core');
  const wrapper = join(scratch('mcp-retrofit-chromium-'), 'chromium');
  writeFileSync(wrapper, `#!/bin/sh\nexec nice -n 19 ${JSON.stringify(CHROMIUM)} "$@"\n`);
  chmodSync(wrapper, 0o755);
  const browser = await chromium.launch({ executablePath: wrapper, args: ['--no-sandbox'] });
  const page = await browser.newPage();
  let apiCalls = 0;
  page.on('request', (r) => {
    if (r.url().includes('/ui/api/') && !r.url().endsWith('/ui/api/events')) apiCalls++;
  });
  await page.goto(`${address}/ui/#/u/retro/t/echo`);
  await page.waitForLoadState('networkidle').catch(() => {});
  return { close: () => browser.close(), apiCalls: () => apiCalls };
}

export async function consoleCost({ quick, log }) {
  if (!existsSync(CHROMIUM)) return [skipped(NAME, `no chromium at ${CHROMIUM} (set CHROMIUM_PATH)`)];
  const seconds = quick ? 1 : 8;
  const rounds = quick ? 1 : 5;
  const raw = await startUpstream('raw-upstream');
  const upstreams = { retro: { url: `${raw.url}/json/mcp`, path: '/retro/mcp', tools: { echo: { outputSchema: OBJECT_SCHEMA } } } };
  const [on, off] = await Promise.all([startGateway(upstreams, { extra: { ui: { enabled: true } } }), startGateway(upstreams)]);
  let browser;
  try {
    const body = toolCall('echo');
    const targets = { on, off };
    if (!quick) for (const gw of Object.values(targets)) await autocannon(`${gw.address}/retro/mcp`, { body, seconds: 1, connections: 10 });
    browser = await watch(on.address);
    const runs = { on: [], off: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['on', 'off'] : ['off', 'on'];
      for (const name of order) {
        const gw = targets[name];
        const cpu0 = cpuMs(gw.pid);
        const r = await autocannon(`${gw.address}/retro/mcp`, { body, seconds, connections: 10 });
        r.cpuUs = ((cpuMs(gw.pid) - cpu0) * 1000) / Math.max(r.requests, 1);
        log(`  s10 console ${name} round ${round + 1}: ${fmt(r.rps)} req/s, ${fmt(r.cpuUs)} µs/exchange${r.errors + r.non2xx ? `, ${r.errors + r.non2xx} errors` : ''}`);
        runs[name].push(r);
      }
    }
    const cpu = (name) => median(runs[name].map((r) => r.cpuUs));
    const rps = (name) => median(runs[name].map((r) => r.rps));
    const fetched = browser.apiCalls();
    return [
      row(NAME, `off ${fmt(cpu('off'))} µs`, `on ${fmt(cpu('on'))} µs (the page fetched the API ${fetched} times)`, ratio(cpu('on'), cpu('off')), { max: 1.05 }),
      row('10 operator console on and watched vs off: throughput', `off ${fmt(rps('off'))} req/s`, `on ${fmt(rps('on'))} req/s`, ratio(rps('on'), rps('off'))),
    ];
  } finally {
    await browser?.close();
    await Promise.all([on.stop(), off.stop(), raw.stop()]);
  }
}
