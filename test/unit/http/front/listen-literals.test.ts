/**
 * A notification a 2026-07-28 listener gets (src/http/front/listen.ts publish) is written again with the
 * listener's subscription id in its `_meta`: the number literals a double cannot hold stay as the upstream
 * wrote them (they went out rounded: 12345678901234567890 as 12345678901234567000). A real socket on port 0.
 */
import { expect, it } from 'vitest';
import { Listeners } from '../../../../src/http/front/listen.js';
import { listen } from '../../../helpers/listen.js';

it('publishes an upstream notification with its number literals as the upstream wrote them', async () => {
  const listeners = new Listeners();
  const { origin } = await listen((_req, res) => listeners.listen(res, 'l1', { toolsListChanged: true }));
  const abort = new AbortController();
  const res = await fetch(origin, { signal: abort.signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let seen = '';
  /** Read until `events` whole SSE events have come. */
  const until = async (events: number): Promise<void> => {
    while (seen.split('\n\n').length <= events) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended before ${events} events`);
      seen += value;
    }
  };
  await until(1);
  expect(seen).toContain('notifications/subscriptions/acknowledged');
  const json = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"n":12345678901234567890,"x":0.1000000000000000055511151231257827}}}';
  expect(listeners.publish('notifications/tools/list_changed', json)).toBe(1);
  await until(2);
  expect(seen).toContain('"_meta":{"n":12345678901234567890,"x":0.1000000000000000055511151231257827,"io.modelcontextprotocol/subscriptionId":"l1"}');
  abort.abort();
  listeners.closeAll();
});
