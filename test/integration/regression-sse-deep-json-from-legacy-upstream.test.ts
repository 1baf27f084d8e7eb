/**
 * Regression: a legacy HTTP+SSE upstream's event nested 100,000 levels deep went through the same owned
 * session as a stdio line — into code that recurses (a batch's messages are serialised one by one; a
 * retrofitted answer is walked), and a throw there ended the link's event loop: the whole session with it.
 * Now the SSE link refuses an event nested deeper than MAX_DEPTH before anything recurses over it, exactly as
 * the stdio link does: logged and dropped, the request it answers gets RETROFIT_ERR_UPSTREAM_PROTOCOL, and the
 * session goes on.
 */
import { describe, expect, it } from 'vitest';
import { gatewayConfig, sseUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { rawLegacyUpstream, type LegacyMessage } from '../helpers/raw-legacy.js';
import { echoCall, echoed, openSession, post, sessionHeaders } from '../hostile/harness.js';

const DEEP = 100_000;

/** A legacy SSE upstream: `deep-answer` is answered 100k levels deep, `deep-batch` gets a deep batch first. */
async function legacyUpstream(): Promise<string> {
  const up = await rawLegacyUpstream((body, res, legacy) => {
    res.writeHead(202).end();
    const m = body as LegacyMessage & { params?: { arguments?: { text?: string } } };
    if (m.id === undefined) return;
    const id = JSON.stringify(m.id);
    if (m.method === 'initialize') return legacy.initialized(m.id);
    const deepObject = `${'{"a":'.repeat(DEEP)}1${'}'.repeat(DEEP)}`;
    const text = m.params?.arguments?.text;
    if (text === 'deep-answer') return legacy.event(`{"jsonrpc":"2.0","id":${id},"result":{"content":[],"x":${deepObject}}}`);
    if (text === 'deep-batch') legacy.event(`[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}},${deepObject}]`);
    legacy.event(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: text ?? '' }] } }));
  });
  return up.url;
}

describe('regression: 100,000-deep JSON from a legacy SSE upstream', () => {
  it('is refused by the link: the request it answers gets UPSTREAM_PROTOCOL, the session goes on', async () => {
    const gw = await startGateway(gatewayConfig([sseUpstream('legacy', await legacyUpstream(), { timeoutMs: 10_000 })]));
    const url = gw.url('/legacy/mcp');
    const h = sessionHeaders(await openSession(url));

    const deep = await post(url, echoCall('d', 'deep-answer'), h);
    expect(deep.messages.find((m) => m.id === 'd')).toEqual({ jsonrpc: '2.0', id: 'd', error: { code: -32002, message: 'upstream "legacy" sent an invalid response', data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } } });
    const batch = await post(url, echoCall('b', 'deep-batch'), h);
    expect(echoed(batch.messages.find((m) => m.id === 'b'))).toBe('deep-batch');
    expect(gw.logs.filter((l) => l.msg === 'upstream message nested deeper than 512 levels dropped')).toHaveLength(2);
    expect(echoed((await post(url, echoCall('after', 'still here'), h)).messages.find((m) => m.id === 'after'))).toBe('still here');
  });
});
