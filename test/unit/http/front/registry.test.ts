/**
 * FrontSessions.room(): a new session waits while a session still closing holds the only place under
 * maxSessions, and no longer than its limit — a link whose close never ends cannot hold a new session's
 * initialize forever (then admit() refuses it, as before). The sessions here are stand-ins: only what the
 * registry reads of one (its id, its pending count, close()).
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FrontSessions } from '../../../../src/http/front/registry.js';
import type { FrontSession } from '../../../../src/http/front/session.js';
import { createLogger } from '../../../../src/log.js';
import { createMetrics } from '../../../../src/metrics.js';

const sink = new Writable({ write: (_chunk, _encoding, done) => done() });

function registry(): FrontSessions {
  return new FrontSessions({ upstream: 'u', log: createLogger({ destination: sink }), metrics: createMetrics({ defaultMetrics: false }), maxSessions: () => 1, idleTimeoutMs: () => 60_000 });
}

/** A session whose close() resolves only when `finish` is called. */
function standIn(id: string): { session: FrontSession; finish: () => void } {
  let finish = (): void => {};
  const closed = new Promise<void>((resolve) => (finish = resolve));
  const session = { id, closed: false, streams: 0, owned: { state: { pending: { size: 0 } } }, close: () => closed, tick: () => {} } as unknown as FrontSession;
  return { session, finish };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('FrontSessions.room', () => {
  it('waits for the place of a session still closing, and resolves once its link is gone', async () => {
    const sessions = registry();
    const { session, finish } = standIn('a');
    sessions.add(session);
    void sessions.close(session, 'test');
    expect(sessions.admit()?.code).toBe('RETROFIT_ERR_TOO_MANY_SESSIONS');
    let done = false;
    const room = sessions.room(60_000).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    finish();
    await room;
    expect(sessions.admit()).toBeUndefined();
  });

  it('gives up after its limit when the closing link never ends: admit() then refuses', async () => {
    vi.useFakeTimers();
    const sessions = registry();
    const { session } = standIn('a');
    sessions.add(session);
    void sessions.close(session, 'test');
    let done = false;
    const room = sessions.room(5_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await room;
    expect(sessions.admit()?.code).toBe('RETROFIT_ERR_TOO_MANY_SESSIONS');
  });

  it('does not wait when a live session holds the place, even while another is closing', async () => {
    const sessions = registry();
    const closing = standIn('closing');
    sessions.add(closing.session);
    void sessions.close(closing.session, 'test');
    sessions.add(standIn('live').session);
    // Resolves at once (a wait would hang here: the closing link never ends and the limit is a minute).
    await sessions.room(60_000);
    expect(sessions.admit()?.code).toBe('RETROFIT_ERR_TOO_MANY_SESSIONS');
  });
});
