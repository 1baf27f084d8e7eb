/**
 * Scenario 5 — streaming: time from the raw upstream emitting an SSE progress notification (the result
 * follows 200 ms later, 100 ms with --quick) to the client receiving it, direct vs through mcp-retrofit. A buffering proxy would
 * deliver the notification with the result, ≥ 200 ms late. Client in its own process.
 */
import { join } from 'node:path';
import { runToEnd } from '../lib/procs.js';
import { ROOT, startGateway, startUpstream } from '../lib/servers.js';
import { fmt, row } from '../lib/table.js';

async function probe(url, n) {
  const out = await runToEnd(process.execPath, [join(ROOT, 'bench', 'lib', 'progress-client.js'), url, String(n)], { timeoutMs: n * 2_000 + 30_000 });
  return JSON.parse(out.trim().split('\n').pop());
}

export async function streaming({ quick, log }) {
  const n = quick ? 10 : 100;
  const delay = quick ? 100 : 200;
  const raw = await startUpstream('raw-upstream', { PROGRESS_DELAY_MS: String(delay) });
  const gw = await startGateway({ raw: { url: `${raw.url}/sse/mcp`, path: '/raw/mcp' } });
  try {
    await probe(`${gw.address}/raw/mcp`, quick ? 1 : 3);
    const direct = await probe(`${raw.url}/sse/mcp`, n);
    const through = await probe(`${gw.address}/raw/mcp`, n);
    log(`  s5 direct p50 ${fmt(direct.p50)} p99 ${fmt(direct.p99)}; gateway p50 ${fmt(through.p50)} p99 ${fmt(through.p99)}; before result ${through.beforeResult}/${n}`);
    const show = (r) => `p50 ${fmt(r.p50)} ms, p99 ${fmt(r.p99)} ms, ${r.beforeResult}/${r.n} before the result`;
    return [
      row(`5 streaming: upstream progress notification → client (result ${delay} ms later), p50`, `direct ${show(direct)}`, `${show(through)}`, through.p50 / direct.p50),
      {
        ...row(`5 streaming: notification not buffered (every one arrives before its result)`, `direct ${direct.beforeResult}/${n}`, `${through.beforeResult}/${n}`, through.beforeResult / Math.max(direct.beforeResult, 1)),
        target: `${n}/${n}`,
        met: through.beforeResult === n,
      },
    ];
  } finally {
    await gw.stop();
    await raw.stop();
  }
}
