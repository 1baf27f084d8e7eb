/**
 * The console on a thousand tools (issue 28): a v1 SDK upstream (Streamable HTTP, port 0) lists `tool_0000` …
 * `tool_0999`, each answering JSON text; the gateway (`serve`, in-process, `ui: { enabled: true }`) configures
 * an outputSchema for 400 of them by glob (even `n` passes, odd fails) and one more in shadow, so the list has
 * configured, shadow and unseen rows. The API lists all 1,000 with totals that equal /metrics and 60-bucket
 * series; in Debian's chromium the tools page says 1,000, renders the first batch only, shows more by keyboard,
 * filters to one row, stays clean (no console error, no failed request, no serious axe violation), and a row
 * comes to what /metrics counts for calls made while the page is open. Times are written to stdout for the
 * record; nothing asserts on them.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { browserMissing, ensureUiBuilt, launchBrowser, seriousViolations, watchPage } from '../helpers/browser.js';
import { startServe, type Served } from '../helpers/serve.js';
import { startV1Server } from '../helpers/v1-server.js';

const TOOLS = 1_000;
const name = (i: number): string => `tool_${String(i).padStart(4, '0')}`;
/** The tools page's first batch and what its button adds (ui/src/pages/tools.tsx: PAGE, PAGE * 5). */
const FIRST_BATCH = 200;
const missing = browserMissing();

/** A v1 McpServer with a thousand tools, each answering `{"n": i, "name": …}` as JSON text. */
function thousandTools(): McpServer {
  const server = new McpServer({ name: 'thousand-tools', version: '1.0.0' });
  for (let i = 0; i < TOOLS; i++) {
    const tool = name(i);
    server.registerTool(tool, { description: `tool number ${i}` }, async () => ({ content: [{ type: 'text', text: JSON.stringify({ n: i, name: tool }) }] }));
  }
  return server;
}

// tool_0000 … tool_0399 by glob (n must be even: tool_0003 fails), tool_0500 in shadow; the other 599 have none.
const config = (url: string): string => `
ui: { enabled: true }
upstreams:
  many:
    url: ${JSON.stringify(url)}
    tools:
      "tool_0[0-3]??":
        outputSchema: { type: object, properties: { n: { type: integer, multipleOf: 2 }, name: { type: string } }, required: [n] }
      tool_0500:
        shadow: true
        outputSchema: { type: object, properties: { n: { type: integer, maximum: 10 } } }
`;

type Outcome = 'native' | 'extracted' | 'invalid' | 'unparseable' | 'shadow';
type Totals = Record<Outcome, number>;
interface ToolsReply {
  upstream: string;
  tools: { name: string; schema: string; mode: string; totals: Totals; series: Record<string, number[]> }[];
}

/** The outcome totals /metrics has for one tool, as the console sums them (docs/console.md). */
async function metricTotals(origin: string, tool: string): Promise<Totals> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const totals: Totals = { native: 0, extracted: 0, invalid: 0, unparseable: 0, shadow: 0 };
  for (const line of text.split('\n')) {
    if (!line.startsWith('mcp_retrofit_retrofit_outcomes_total{')) continue;
    const labels = Object.fromEntries([...line.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (labels.upstream !== 'many' || labels.tool !== tool) continue;
    const key = (labels.mode === 'shadow' ? 'shadow' : labels.outcome) as Outcome;
    if (key in totals) totals[key] += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return totals;
}

/** The upstream, the gateway in front of it, and a client that has listed the tools. */
async function start(): Promise<{ gw: Served; client: Client }> {
  const upstream = await startV1Server({ jsonResponse: true, build: thousandTools });
  const gw = await startServe(config(upstream.url));
  const client = new Client({ name: 'thousand-tools-test', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(`${gw.origin}/many/mcp`)));
  expect((await client.listTools()).tools).toHaveLength(TOOLS);
  return { gw, client };
}

/** Calls each tool once. */
async function call(client: Client, tools: readonly string[]): Promise<void> {
  for (const tool of tools) await client.callTool({ name: tool, arguments: {} });
}

async function tools(origin: string): Promise<{ body: ToolsReply; ms: number }> {
  const began = performance.now();
  const res = await fetch(`${origin}/ui/api/upstreams/many/tools`);
  const body = (await res.json()) as ToolsReply;
  const ms = performance.now() - began;
  expect(res.status).toBe(200);
  return { body, ms };
}

const note = (line: string): void => void process.stdout.write(`[console-thousand-tools] ${line}\n`);

/**
 * A script for the page: when `selector` first matches after it runs, it waits for the frame to be painted and
 * keeps the milliseconds since `from` (the page's clock; 0 = navigation start, null = now) as `globalThis[key]`.
 * A string, as the helper's axe run: the page's DOM types are not the test's.
 */
const markWhenShown = (selector: string, key: string, from: 0 | null): string => `(() => {
  const began = ${from === null ? 'performance.now()' : '0'};
  const observer = new MutationObserver(() => {
    if (document.querySelector(${JSON.stringify(selector)}) === null) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => { globalThis[${JSON.stringify(key)}] = performance.now() - began; }, 0));
  });
  observer.observe(document, { childList: true, subtree: true });
})()`;

const marked = async (page: Page, key: string): Promise<number> => {
  await expect.poll(() => page.evaluate((k) => typeof (globalThis as unknown as Record<string, unknown>)[k], key), { timeout: 5_000, interval: 20 }).toBe('number');
  return page.evaluate((k) => (globalThis as unknown as Record<string, number>)[k] ?? NaN, key);
};

/** The numbers one row of the tools page shows. */
async function rowTotals(page: Page, tool: string): Promise<Record<string, number>> {
  return page.$$eval(`tr[data-tool="${tool}"] td[data-outcome]`, (cells) => Object.fromEntries(cells.map((c) => [c.getAttribute('data-outcome'), Number(c.textContent?.replace(/\D/g, ''))])));
}

beforeAll(async () => {
  await ensureUiBuilt();
});

it('lists 1,000 tools with 60-bucket series, and the called tools total what /metrics counts', { timeout: 30_000 }, async () => {
  const { gw, client } = await start();
  const called = ['tool_0002', 'tool_0003', 'tool_0500', 'tool_0999'];
  await call(client, [...called, 'tool_0002', 'tool_0003']);

  // The console learns the list from the tools/list answer; wait until it has all of it.
  await expect.poll(async () => (await tools(gw.origin)).body.tools.length, { timeout: 5_000, interval: 50 }).toBe(TOOLS);
  const { body, ms } = await tools(gw.origin);
  note(`GET /ui/api/upstreams/many/tools: ${ms.toFixed(1)} ms for ${body.tools.length} tools`);
  expect(body.tools.map((t) => t.name)).toEqual(Array.from({ length: TOOLS }, (_, i) => name(i)));
  for (const t of body.tools) {
    expect(Object.keys(t.series).sort()).toEqual(['extracted', 'invalid', 'shadow', 'unparseable', 'validated']);
    for (const s of Object.values(t.series)) expect(s).toHaveLength(60);
  }
  const by = (schema: string, mode: string): number => body.tools.filter((t) => t.schema === schema && t.mode === mode).length;
  expect([by('configured', 'on'), by('configured', 'shadow'), by('none', 'unseen')]).toEqual([400, 1, 599]);

  const row = (tool: string) => body.tools.find((t) => t.name === tool);
  for (const tool of called) expect(row(tool)?.totals, tool).toEqual(await metricTotals(gw.origin, tool));
  // Each outcome landed where the schema says: not all zeros, which would agree with /metrics by accident.
  expect(row('tool_0002')?.totals).toMatchObject({ extracted: 2, invalid: 0 });
  expect(row('tool_0003')?.totals).toMatchObject({ extracted: 0, invalid: 2 });
  expect(row('tool_0500')?.totals).toMatchObject({ shadow: 1 });
  // The series count the same calls in the last minutes.
  expect((row('tool_0002')?.series.extracted ?? []).reduce((a, b) => a + b, 0)).toBe(2);
  // An uncalled tool counts nothing.
  expect(Object.values(row('tool_0001')?.totals ?? {})).toEqual([0, 0, 0, 0, 0]);
});

describe.skipIf(missing !== null)(`the tools page on 1,000 tools in a real browser${missing === null ? '' : ` (skipped: ${missing})`}`, () => {
  it('shows the count, renders the first batch, shows more by keyboard, filters, stays clean, and updates live', { timeout: 40_000 }, async () => {
    const { gw, client } = await start();
    await call(client, ['tool_0002', 'tool_0003']);
    await expect.poll(async () => (await tools(gw.origin)).body.tools.length, { timeout: 5_000, interval: 50 }).toBe(TOOLS);
    const browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    onTestFinished(() => page.close());
    const problems = watchPage(page);
    const rows = page.locator('table.tools tbody tr');
    const caption = page.locator('#tools-caption');

    await page.addInitScript(markWhenShown('tr[data-tool="tool_0000"]', 'firstBatchMs', 0));
    await page.goto(`${gw.origin}/ui/#/u/many`);
    await page.locator('tr[data-tool="tool_0000"]').waitFor({ timeout: 10_000 });
    note(`tools page: first ${FIRST_BATCH} rows painted ${(await marked(page, 'firstBatchMs')).toFixed(0)} ms after navigation start`);
    expect(await caption.textContent()).toMatch(/^The first 200 of 1,000 tools; /);
    expect(await rows.count()).toBe(FIRST_BATCH);
    expect(await page.locator(`tr[data-tool="${name(FIRST_BATCH - 1)}"]`).count()).toBe(1);
    expect(await page.locator(`tr[data-tool="${name(FIRST_BATCH)}"]`).count()).toBe(0);
    expect(await rowTotals(page, 'tool_0003')).toEqual(await metricTotals(gw.origin, 'tool_0003'));
    const axeBegan = performance.now();
    expect(await seriousViolations(page), 'axe on the first batch').toEqual([]);
    note(`axe-core on ${FIRST_BATCH} rows: ${(performance.now() - axeBegan).toFixed(0)} ms`);

    // Filtering to one name shows exactly that row, beyond the first batch too.
    await page.getByLabel('Filter tools').fill('tool_0999');
    await expect.poll(() => rows.count(), { timeout: 5_000, interval: 50 }).toBe(1);
    expect(await rows.first().getAttribute('data-tool')).toBe('tool_0999');
    expect(await caption.textContent()).toMatch(/^1 matching tools \(1,000 in all\); /);
    await page.getByLabel('Filter tools').fill('');
    await expect.poll(() => rows.count(), { timeout: 5_000, interval: 50 }).toBe(FIRST_BATCH);

    // "Show more" by keyboard: focus and Enter render the other 800 (the button adds up to five batches).
    const more = page.getByRole('button', { name: 'Show 800 more tools' });
    await more.focus();
    await page.evaluate(markWhenShown(`tr[data-tool="${name(TOOLS - 1)}"]`, 'moreMs', null));
    await page.keyboard.press('Enter');
    await page.locator(`tr[data-tool="${name(TOOLS - 1)}"]`).waitFor({ timeout: 10_000 });
    note(`tools page: 800 more rows painted ${(await marked(page, 'moreMs')).toFixed(0)} ms after Enter`);
    expect(await rows.count()).toBe(TOOLS);
    expect(await caption.textContent()).toMatch(/^1,000 tools; /);
    expect(await more.count()).toBe(0);

    // Live: calls made while the page is open reach their rows, one of them past the first batch.
    await call(client, ['tool_0002', 'tool_0003', 'tool_0003', 'tool_0500', 'tool_0500', 'tool_0500']);
    const expected = { tool_0002: await metricTotals(gw.origin, 'tool_0002'), tool_0003: await metricTotals(gw.origin, 'tool_0003'), tool_0500: await metricTotals(gw.origin, 'tool_0500') };
    expect(expected).toMatchObject({ tool_0002: { extracted: 2 }, tool_0003: { invalid: 3 }, tool_0500: { shadow: 3 } });
    const called = performance.now();
    await expect
      .poll(async () => ({ tool_0002: await rowTotals(page, 'tool_0002'), tool_0003: await rowTotals(page, 'tool_0003'), tool_0500: await rowTotals(page, 'tool_0500') }), { timeout: 10_000, interval: 100 })
      .toEqual(expected);
    note(`tools page: live rows caught up ${(performance.now() - called).toFixed(0)} ms after the calls`);
    // The live re-render kept every row.
    expect(await rows.count()).toBe(TOOLS);
    const seen = problems.take();
    expect(seen, `problems on #/u/many: ${JSON.stringify(seen)}`).toEqual([]);
  });
});
