import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { createLogger } from '../../../src/log.js';
import type { PendingRequest, Rewriter } from '../../../src/pipeline/rewrite.js';
import { PendingRequests } from '../../../src/session/pending.js';
import { ResponseMatcher, type SessionState } from '../../../src/session/responses.js';
import { SessionFacts } from '../../../src/session/sessions.js';

const log = createLogger({ level: 'silent' });

function state(): SessionState & { seen: PendingRequest[] } {
  const seen: PendingRequest[] = [];
  const rewriter: Rewriter = {
    needsRewrite: () => true,
    policyOf: () => undefined,
    rewrite: (request, message) => {
      seen.push(request);
      return { ...message, result: { ...(message.result as JsonObject), rewritten: true } };
    },
  };
  return { pending: new PendingRequests(), facts: new SessionFacts(), rewriter, seen };
}

const call = (tool: string): PendingRequest => ({ upstream: 'u', method: 'tools/call', tool, revision: '2025-11-25' });

describe('ResponseMatcher', () => {
  it('rewrites only responses it expects, and leaves requests and notifications alone', () => {
    const s = state();
    const m = new ResponseMatcher('u', 's1', s, log);
    expect(m.active).toBe(false);
    m.expect(1, { kind: 'rewrite', request: call('a'), shared: true });
    expect(m.active).toBe(true);
    const notification = { jsonrpc: '2.0', method: 'notifications/progress', params: {} };
    expect(m.handle(notification)).toEqual({ message: notification, changed: false });
    const serverRequest = { jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: {} };
    expect(m.handle(serverRequest).changed).toBe(false);
    expect(m.handle({ jsonrpc: '2.0', id: 2, result: {} }).changed).toBe(false);
    expect(m.handle({ jsonrpc: '2.0', id: 1, result: { x: 1 } })).toEqual({ message: { jsonrpc: '2.0', id: 1, result: { x: 1, rewritten: true } }, changed: true });
    expect(s.seen).toEqual([call('a')]);
  });

  it('keeps an answered session request matchable for replays for answeredTtlMs, then forgets it', () => {
    let now = 0;
    const s = { ...state(), pending: new PendingRequests({ answeredTtlMs: 1_000, now: () => now }) };
    const m = new ResponseMatcher('u', 's1', s, log);
    m.expect(1, { kind: 'rewrite', request: call('a'), shared: true });
    expect(m.handle({ jsonrpc: '2.0', id: 1, result: {} }).changed).toBe(true);
    now = 900;
    const replay = new ResponseMatcher('u', 's1', s, log);
    expect(replay.handle({ jsonrpc: '2.0', id: 1, result: {} }).changed).toBe(true);
    now = 1_001;
    expect(new ResponseMatcher('u', 's1', s, log).handle({ jsonrpc: '2.0', id: 1, result: {} }).changed).toBe(false);
    now = 10_000;
    expect(new ResponseMatcher('u', 's1', s, log).active).toBe(false);
  });

  it('shares expected responses of a session with later streams (GET replay), but not session-less ones', () => {
    const s = state();
    new ResponseMatcher('u', 's1', s, log).expect(5, { kind: 'rewrite', request: call('late'), shared: true });
    new ResponseMatcher('u', undefined, s, log).expect(6, { kind: 'rewrite', request: call('local'), shared: false });
    const other = new ResponseMatcher('u', 's2', s, log);
    expect(other.active).toBe(false);
    expect(other.handle({ jsonrpc: '2.0', id: 5, result: {} }).changed).toBe(false);
    const replay = new ResponseMatcher('u', 's1', s, log);
    expect(replay.active).toBe(true);
    expect(replay.handle({ jsonrpc: '2.0', id: 5, result: {} }).changed).toBe(true);
    expect(new ResponseMatcher('u', undefined, s, log).handle({ jsonrpc: '2.0', id: 6, result: {} }).changed).toBe(false);
  });

  it("remembers the session's revision from the initialize result, under the session the response assigned", () => {
    const s = state();
    const m = new ResponseMatcher('u', undefined, s, log);
    m.expect(0, { kind: 'initialize' });
    m.assignSession('new-session');
    const init = { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'x', version: '1' } } };
    expect(m.handle(init)).toEqual({ message: init, changed: false });
    expect(s.facts.revisionOf('u', 'new-session')).toBe('2025-06-18');
    expect(s.seen).toEqual([]);
  });

  it('remembers which tool created a task, for tasks/result', () => {
    const s = state();
    const m = new ResponseMatcher('u', 's1', s, log);
    m.expect('c1', { kind: 'rewrite', request: call('slow'), shared: true });
    m.handle({ jsonrpc: '2.0', id: 'c1', result: { task: { taskId: 't-9', status: 'working' } } });
    expect(s.facts.toolOfTask('u', 's1', 't-9')).toBe('slow');
  });
});
