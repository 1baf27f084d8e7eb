/**
 * Regression (review): tool names are the upstream's choice, and metrics used them as label values. An upstream
 * that listed 2,000 new names with a broken inputSchema on every tools/list added 2,000 series to
 * `mcp_retrofit_tool_repairs_total` and 2,000 info log lines each time (150,000 series and 483 MB RSS after 75
 * lists). Now an upstream's first TOOL_LABELS_MAX names keep their label and the rest count as `other` (so do
 * names past TOOL_NAME_CHARS), and one tools/list logs at most REPAIR_LINES repairs at info, then one line
 * saying how many more. A `"*"` entry governs every name, dot segments and newlines included.
 */
import { describe, expect, it } from 'vitest';
import { TOOL_LABELS_MAX } from '../../src/metrics.js';
import { TOOL_NAME_CHARS } from '../../src/tool-name.js';
import { REPAIR_LINES } from '../../src/pipeline/report.js';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { openSession, post, sessionHeaders } from './harness.js';

const PER_LIST = 700;
// Every tools/list: PER_LIST names never listed before, each without `type: object` in its inputSchema (a repair).
const child = rawChild(`(() => {
  let next = 0;
  return (m, out) => {
    if (m.method === 'tools/list') {
      const tools = Array.from({ length: ${PER_LIST} }, () => ({ name: 't' + (next++), inputSchema: {} }));
      tools.push({ name: 'x'.repeat(${TOOL_NAME_CHARS + 1}), inputSchema: {} }, { name: '../..', inputSchema: {} }, { name: 'a\\nb', inputSchema: {} });
      return out({ jsonrpc: '2.0', id: m.id, result: { tools } });
    }
    if (m.method === 'tools/call') return out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'plain' }] } });
    out({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'no' } });
  };
})()`);

describe('regression: an upstream that invents tool names', () => {
  it('cannot grow metric series or log lines without bound, and "*" governs even its oddest names', async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), tools: { '*': { outputSchema: { type: 'object', properties: { n: { type: 'number' } } } } } });
    const h = sessionHeaders(await openSession(gateway.url));
    for (let i = 0; i < 3; i++) {
      const listed = await post(gateway.url, { jsonrpc: '2.0', id: 100 + i, method: 'tools/list' }, h);
      const tools = (listed.messages[0]?.result as { tools: { name: string; outputSchema?: unknown }[] }).tools;
      expect(tools).toHaveLength(PER_LIST + 3);
      // The catch-all entry's schema is listed for every name, `../..` and one with a newline too.
      expect(tools.filter((t) => t.outputSchema === undefined).map((t) => t.name)).toEqual([]);
    }
    // A call of the oddest name is governed by "*" (its text cannot be read: onInvalid's default, an error result).
    const called = await post(gateway.url, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'a\nb', arguments: {} } }, h);
    expect(called.messages[0]).toMatchObject({ id: 7, result: { isError: true } });

    const repairs = (await gateway.metrics.repairs.get()).values;
    const labels = new Set(repairs.map((v) => v.labels.tool));
    expect(labels.size).toBe(TOOL_LABELS_MAX + 1);
    expect(labels.has('other')).toBe(true);
    expect(labels.has('x'.repeat(TOOL_NAME_CHARS + 1))).toBe(false);
    expect(repairs.reduce((n, v) => n + v.value, 0)).toBe(3 * (PER_LIST + 3));
    const retrofits = (await gateway.metrics.retrofits.get()).values;
    // Counted under its own name: it was among the first TOOL_LABELS_MAX this upstream was counted under.
    expect(retrofits.map((v) => v.labels.tool)).toEqual(['a\nb']);

    // New repairs only: the three names every list repeats are logged once, then at debug.
    const info = gateway.logs.filter((l) => l.msg === 'tool definition repaired' && l.level === 30);
    expect(info).toHaveLength(3 * REPAIR_LINES);
    expect(gateway.logs.filter((l) => l.msg === 'more tool definitions repaired in this tools/list (logged at debug)').map((l) => l.more)).toEqual([PER_LIST + 3 - REPAIR_LINES, PER_LIST - REPAIR_LINES, PER_LIST - REPAIR_LINES]);
  });
});
