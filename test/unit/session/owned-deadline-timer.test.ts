/**
 * The session's one deadline timer: armed when a request is registered (a send that is still waiting counts
 * against the deadline), and let go once nothing waits (it used to linger until the deadline of the last
 * request, timeoutMs after it was answered). A stand-in link records what is sent; timers are Vitest's fakes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { classifyMessage } from '../../../src/jsonrpc/classify.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { createRewriter } from '../../../src/pipeline/rewrite.js';
import { OwnedSession, type ClientSide, type Delivery } from '../../../src/session/owned.js';
import { SessionState } from '../../../src/session/state.js';
import type { LinkClosed, LinkDropped, LinkFrame, SendOutcome, UpstreamLink } from '../../../src/upstream/link.js';

class StandInLink implements UpstreamLink {
  onframe: (frame: LinkFrame) => void = () => {};
  ondropped: (dropped: LinkDropped) => void = () => {};
  onclose: (closed: LinkClosed) => void = () => {};
  readonly sent: string[] = [];
  alive = true;
  /** A send that settles only when told (a POST queued behind others). */
  held: ((outcome: SendOutcome) => void) | undefined;
  hold = false;

  send(json: string): SendOutcome | Promise<SendOutcome> {
    this.sent.push(json);
    if (!this.hold) return { ok: true };
    return new Promise((resolve) => (this.held = resolve));
  }
  answer(id: string, result: object = {}): void {
    const data = JSON.stringify({ jsonrpc: '2.0', id, result });
    this.onframe({ data, raw: Buffer.from(data) });
  }
  pause(): void {}
  resume(): void {}
  async close(): Promise<void> {
    this.alive = false;
  }
}

describe('an owned session\'s deadline timer', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  function session(): { owned: OwnedSession<string>; link: StandInLink; got: Delivery[]; request: (id: string) => void } {
    const metrics = createMetrics({ defaultMetrics: false });
    const link = new StandInLink();
    const owned = new OwnedSession<string>({
      upstream: 'u',
      link,
      state: new SessionState<string>({ upstream: 'u', bridge: true }),
      rewriter: createRewriter(metrics, { pool: false, isolatePool: false }),
      metrics,
      log: createLogger({ level: 'silent' }),
      timeoutMs: () => 1_000,
      maxResultBytes: () => 1 << 20,
      onclose: () => {},
    });
    const got: Delivery[] = [];
    const client: ClientSide<string> = { deliver: (_stream, d) => void got.push(d), backedUp: () => false, abandon: () => {} };
    owned.attach(client);
    const request = (id: string): void => {
      const c = classifyMessage({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 't', arguments: {} } });
      void owned.request(c, JSON.stringify(c.message), { header: '2025-06-18', policy: undefined, stream: id });
    };
    return { owned, link, got, request };
  }

  it('is let go once every request was answered', () => {
    const { link, got, request } = session();
    const others = vi.getTimerCount();
    request('a');
    request('b');
    expect(vi.getTimerCount() - others).toBe(1);
    link.answer('a');
    expect(vi.getTimerCount() - others).toBe(1);
    link.answer('b');
    expect(got.map((d) => d.answers)).toEqual(['a', 'b']);
    expect(vi.getTimerCount() - others).toBe(0);
  });

  it('runs from registration: a send still waiting past the deadline does not hold the answer back', async () => {
    const { link, got, request } = session();
    link.hold = true;
    const others = vi.getTimerCount();
    request('slow');
    expect(vi.getTimerCount() - others).toBe(1);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(got.map((d) => [d.answers, d.error?.code])).toEqual([['slow', -32001]]);
    // The send settles later: nothing more for the client.
    link.held?.({ ok: true });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(got).toHaveLength(1);
  });
});
