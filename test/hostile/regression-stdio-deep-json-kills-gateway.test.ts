/**
 * Regression: a stdio line nested 100,000 levels deep killed the gateway — JSON.parse is iterative in V8, but
 * what came after it is not (JSON.stringify of a batch's messages in the owned session, object spreads and
 * JSON.stringify in share mode's routing): `RangeError: Maximum call stack size exceeded`, thrown inside the
 * child's stdout data handler. Now a line nested deeper than MAX_DEPTH is refused before anything recurses
 * over it (by the link; a line past OFFLOAD_BYTES, which comes as bytes, by the session, in slices past a
 * mebibyte and in order with the lines after it): it is logged and dropped, and a request it answered (its id
 * read from its ends) gets RETROFIT_ERR_UPSTREAM_PROTOCOL at once. Owned sessions and share mode alike; the
 * session goes on.
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { echoCall, openSession, post, sessionHeaders } from './harness.js';

const DEEP = 100_000;
/** Nesting that makes a line of ~2.4 MB: read in slices, the lines after it waiting their turn. */
const HUGE = 400_000;
// Each tools/call names in its text what the child writes first; the shapes without an id are followed by the
// real answer ("after"), which must still arrive.
const child = rawChild(`(m, out) => {
  const deepObject = '{"a":'.repeat(${DEEP}) + '1' + '}'.repeat(${DEEP});
  const id = JSON.stringify(m.id);
  const after = () => out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'after' }] } });
  switch (m.params.arguments.text) {
    case 'deep-batch': out('['.repeat(${DEEP}) + ']'.repeat(${DEEP})); return after();
    case 'deep-object': out(deepObject); return after();
    case 'deep-in-batch': out('[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}},' + deepObject + ']'); return after();
    case 'deep-notification': out('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":' + deepObject + '}}'); return after();
    case 'deep-answer': return out('{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[],"x":' + deepObject + '}}');
    case 'deep-answer-id-last': return out('{"result":{"content":[],"x":' + deepObject + '},"jsonrpc":"2.0","id":' + id + '}');
    // Past a mebibyte: a session's own child hands these over as bytes, checked in slices.
    case 'huge-deep-answer': return out('{"jsonrpc":"2.0","id":' + id + ',"result":{"content":[],"x":' + '{"a":'.repeat(${HUGE}) + '1' + '}'.repeat(${HUGE}) + '}}');
    case 'huge-then-answer': out({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(${HUGE} * 6) } }); return after();
    default: return after();
  }
}`);

const PROTOCOL_ERROR = { code: -32002, message: 'upstream "fixture" sent an invalid response', data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } };

describe.each([
  ['an owned session', false],
  ['share mode', true],
])('regression: 100,000-deep JSON from a stdio child, %s', (_label, share) => {
  it('is refused before anything recurses: dropped and logged, a request it answers gets UPSTREAM_PROTOCOL, the gateway serves on', async () => {
    const gateway = await startStdioGateway({ args: rawArgs(child), upstream: { share, timeoutMs: 10_000 }, stdio: { killTimeoutMs: 1_000 } });
    const h = sessionHeaders(await openSession(gateway.url));
    for (const shape of ['deep-batch', 'deep-object', 'deep-in-batch', 'deep-notification']) {
      const answer = await post(gateway.url, echoCall(shape, shape), h);
      expect(answer.messages.find((m) => m.id === shape), shape).toEqual({ jsonrpc: '2.0', id: shape, result: { content: [{ type: 'text', text: 'after' }] } });
    }
    // Order is kept while a long line is checked: the 2.4 MB notification comes before the answer after it.
    const huge = await post(gateway.url, echoCall('huge-then-answer', 'huge-then-answer'), h);
    expect(huge.messages.map((m) => m.method ?? m.id)).toEqual(['notifications/message', 'huge-then-answer']);
    expect(((huge.messages[0]!.params as { data: string }).data).length).toBe(HUGE * 6);
    for (const shape of ['deep-answer', 'deep-answer-id-last', 'huge-deep-answer']) {
      const answer = await post(gateway.url, echoCall(shape, shape), h);
      expect(answer.messages.find((m) => m.id === shape), shape).toEqual({ jsonrpc: '2.0', id: shape, error: PROTOCOL_ERROR });
    }
    const dropped = gateway.logs.filter((l) => l.msg === 'upstream message nested deeper than 512 levels dropped');
    expect(dropped.length).toBeGreaterThanOrEqual(share ? 3 : 7);
    expect(gateway.logs.filter((l) => (l.level as number) >= 50)).toEqual([]);
    expect(answerText(await post(gateway.url, echoCall('last', 'fine'), h))).toBe('after');
    expect((await fetch(new URL('/healthz', gateway.url))).status).toBe(200);
  });
});

function answerText(answer: { messages: Record<string, unknown>[] }): unknown {
  const result = answer.messages.find((m) => m.id === 'last')?.result as { content?: { text?: string }[] } | undefined;
  return result?.content?.[0]?.text;
}
