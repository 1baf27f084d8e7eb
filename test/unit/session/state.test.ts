import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { classifyMessage } from '../../../src/jsonrpc/classify.js';
import { META_PROTOCOL_VERSION } from '../../../src/protocol/era.js';
import type { Pending } from '../../../src/session/pending.js';
import { SessionState, type RequestContext } from '../../../src/session/state.js';
import { upstreamWith } from '../retrofit/helpers.js';

const policy = upstreamWith({
  typed: { outputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
  plain: {},
});
const ctx = (extra: Partial<RequestContext> = {}): RequestContext => ({ header: undefined, policy, ...extra });

function request(id: string | number, method: string, params?: JsonObject): ReturnType<typeof classifyMessage> {
  return classifyMessage({ jsonrpc: '2.0', id, method, ...(params && { params }) });
}
const call = (id: string | number, name: string, meta?: JsonObject): ReturnType<typeof classifyMessage> =>
  request(id, 'tools/call', { name, arguments: {}, ...(meta && { _meta: meta }) });
const initialize = (id: number, protocolVersion: string): ReturnType<typeof classifyMessage> =>
  request(id, 'initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'c', version: '1' } });

function state(bridge = true): SessionState {
  return new SessionState({ upstream: 'u', bridge });
}

/** Initialize a session: the client asked for `requested`, the upstream answered `answered`. */
function initialized(requested: string, answered: string, bridge = true): SessionState {
  const s = state(bridge);
  const { pending } = s.expect(initialize(0, requested), ctx());
  s.settle(s.pending.answer(pending!.id)!, { jsonrpc: '2.0', id: 0, result: { protocolVersion: answered, capabilities: {}, serverInfo: { name: 's', version: '1' } } });
  return s;
}

describe('SessionState.expect', () => {
  it('registers every tools/call of a recording upstream strict, with its arguments; others without them', () => {
    const recording = { ...policy, record: { dir: '/r', maxPerTool: 1, maxBytes: 10 } };
    const s = state();
    const args = { city: 'Paris', days: 2 };
    const plain = s.expect(request(1, 'tools/call', { name: 'plain', arguments: args }), ctx({ policy: recording }));
    expect(plain.pending?.expect).toEqual({ kind: 'rewrite', request: { upstream: 'u', method: 'tools/call', tool: 'plain', revision: '2025-03-26', policy: recording, arguments: args } });
    // Strict: the answer is parsed whatever it holds, so the recorder sees it.
    expect(s.pending.onlyNative).toBe(false);
    const quiet = state();
    const unrecorded = quiet.expect(request(1, 'tools/call', { name: 'plain', arguments: args }), ctx());
    expect(unrecorded.pending?.expect).toEqual({ kind: 'rewrite', request: { upstream: 'u', method: 'tools/call', tool: 'plain', revision: '2025-03-26', policy }, nativeOnly: true });
    // tools/list of a recording upstream carries no arguments.
    expect(s.expect(request(2, 'tools/list'), ctx({ policy: recording })).pending?.expect).toEqual({ kind: 'rewrite', request: { upstream: 'u', method: 'tools/list', revision: '2025-03-26', policy: recording } });
  });

  it('registers initialize with the revision the client asked for, with or without a policy', () => {
    const s = state();
    const registered = s.expect(initialize(1, '2025-11-25'), ctx({ policy: undefined }));
    expect(registered.pending?.expect).toEqual({ kind: 'initialize', requested: '2025-11-25' });
    expect(registered.pending?.method).toBe('initialize');
    expect(s.pending.has(1)).toBe(true);
  });

  it('registers tools/list for rewriting when a policy is given, and nothing without one', () => {
    const s = state();
    const registered = s.expect(request(1, 'tools/list'), ctx({ header: '2025-06-18' }));
    expect(registered.pending?.expect).toEqual({ kind: 'rewrite', request: { upstream: 'u', method: 'tools/list', revision: '2025-06-18', policy } });
    expect(s.expect(request(2, 'tools/list'), ctx({ policy: undefined })).pending).toBeUndefined();
    expect(s.pending.has(2)).toBe(false);
  });

  it('registers a tools/call with a configured outputSchema as a strict rewrite, one without as nativeOnly', () => {
    const s = state();
    const typed = s.expect(call(1, 'typed'), ctx({ header: '2025-11-25' })).pending!;
    expect(typed.expect).toEqual({ kind: 'rewrite', request: { upstream: 'u', method: 'tools/call', tool: 'typed', revision: '2025-11-25', policy } });
    const plain = s.expect(call(2, 'plain'), ctx()).pending!;
    expect(plain.expect).toMatchObject({ kind: 'rewrite', nativeOnly: true, request: { tool: 'plain' } });
    // A tool no `tools:` key matches: only its own structuredContent can change.
    const unknown = s.expect(call(3, 'nobody'), ctx()).pending!;
    expect(unknown.expect).toMatchObject({ kind: 'rewrite', nativeOnly: true, request: { tool: 'nobody' } });
    expect(s.pending.onlyNative).toBe(false);
    s.pending.release(1);
    expect(s.pending.onlyNative).toBe(true);
  });

  it('registers nothing else (other methods, notifications, responses) unless routeAll, which routes every request', () => {
    const s = state();
    expect(s.expect(request(1, 'resources/read', { uri: 'file:///x' }), ctx()).pending).toBeUndefined();
    expect(s.expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' }), ctx({ routeAll: true })).pending).toBeUndefined();
    expect(s.expect(classifyMessage({ jsonrpc: '2.0', id: 9, result: {} }), ctx({ routeAll: true })).pending).toBeUndefined();
    expect(s.pending.empty).toBe(true);

    const stream = { name: 'client stream' };
    const routed = s.expect(request(2, 'resources/read', { uri: 'file:///x', _meta: { progressToken: 'tok' } }), ctx({ routeAll: true, stream, deadline: 12_345 })).pending!;
    expect(routed).toMatchObject({ id: 2, method: 'resources/read', expect: { kind: 'route' }, stream, deadline: 12_345, progressToken: 'tok', answered: false });
    // routeAll does not hide what a rewrite needs.
    expect(s.expect(call(3, 'typed'), ctx({ routeAll: true })).pending?.expect.kind).toBe('rewrite');
  });

  it('keeps a string or number progressToken only', () => {
    const s = state();
    expect(s.expect(call(1, 'typed', { progressToken: 7 }), ctx()).pending?.progressToken).toBe(7);
    expect(s.expect(call(2, 'typed', { progressToken: { no: 1 } }), ctx()).pending).not.toHaveProperty('progressToken');
    expect(s.expect(call(3, 'typed'), ctx()).pending?.deadline).toBe(Infinity);
  });

  it('registers no rewrite when the _meta revision and the header disagree (the upstream answers the conflict)', () => {
    const s = state();
    const meta = { [META_PROTOCOL_VERSION]: '2026-07-28' };
    const registered = s.expect(call(1, 'typed', meta), ctx({ header: '2025-11-25' }));
    expect(registered).toEqual({ revision: '2026-07-28', source: 'meta' });
    expect(s.pending.empty).toBe(true);
    // Agreeing: registered, under the _meta revision.
    expect(s.expect(call(2, 'typed', meta), ctx({ header: '2026-07-28' })).pending?.expect).toMatchObject({ request: { revision: '2026-07-28' } });
  });

  it('returns the governing revision: _meta, then header, then the session, else 2025-03-26', () => {
    const fresh = state();
    expect(fresh.expect(call(1, 'typed'), ctx())).toMatchObject({ revision: '2025-03-26', source: 'default' });
    expect(fresh.expect(call(2, 'typed'), ctx({ header: 'garbage' }))).toMatchObject({ revision: '2025-03-26', source: 'default' });
    const s = initialized('2025-11-25', '2025-03-26');
    expect(s.expect(call(3, 'typed'), ctx())).toMatchObject({ revision: '2025-11-25', source: 'session' });
    expect(s.expect(call(4, 'typed'), ctx({ header: '2025-06-18' }))).toMatchObject({ revision: '2025-06-18', source: 'header' });
    const withMeta = s.expect(call(5, 'typed', { [META_PROTOCOL_VERSION]: '2026-07-28' }), ctx());
    expect(withMeta).toMatchObject({ revision: '2026-07-28', source: 'meta' });
    // The pending request carries the same revision the answer is rewritten for.
    expect(withMeta.pending?.expect).toMatchObject({ request: { revision: '2026-07-28' } });
  });
});

describe('SessionState.settle', () => {
  const initResult = { protocolVersion: '2025-03-26', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'old', version: '0.9' }, instructions: 'hi' };

  it('bridges an initialize answer: the client gets the revision it asked for, the rest of the result unchanged', () => {
    const s = state();
    const pending = s.expect(initialize(1, '2025-11-25'), ctx()).pending!;
    const answer = { jsonrpc: '2.0', id: 1, result: initResult };
    const settled = s.settle(s.pending.answer(1)!, answer);
    expect(settled.negotiated).toEqual({ client: '2025-11-25', upstream: '2025-03-26', bridged: true });
    expect(settled.message).toEqual({ jsonrpc: '2.0', id: 1, result: { ...initResult, protocolVersion: '2025-11-25' } });
    // The upstream's answer itself is left alone.
    expect(answer.result.protocolVersion).toBe('2025-03-26');
    expect(pending.expect.kind).toBe('initialize');
    expect(s.clientRevision).toBe('2025-11-25');
    expect(s.upstreamRevision).toBe('2025-03-26');
  });

  it('does not bridge with bridge off, or within one era: no message, both revisions the upstream\'s', () => {
    for (const [requested, answered, bridge] of [['2025-11-25', '2025-03-26', false], ['2025-11-25', '2025-06-18', true]] as const) {
      const s = state(bridge);
      s.expect(initialize(1, requested), ctx());
      const settled = s.settle(s.pending.answer(1)!, { jsonrpc: '2.0', id: 1, result: { ...initResult, protocolVersion: answered } });
      expect(settled).toEqual({ negotiated: { client: answered, upstream: answered, bridged: false } });
      expect(s.clientRevision).toBe(answered);
    }
  });

  it('learns nothing from an initialize error or a result without a revision', () => {
    const s = state();
    s.expect(initialize(1, '2025-11-25'), ctx());
    expect(s.settle(s.pending.answer(1)!, { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'no' } })).toEqual({});
    s.expect(initialize(2, '2025-11-25'), ctx());
    expect(s.settle(s.pending.answer(2)!, { jsonrpc: '2.0', id: 2, result: { ...initResult, protocolVersion: 'latest' } })).toEqual({});
    expect(s.negotiated).toBeUndefined();
  });

  it('remembers the tool of a tools/call that created a task, so its tasks/result is rewritten like the call', () => {
    const s = state();
    s.expect(call(1, 'typed'), ctx());
    expect(s.settle(s.pending.answer(1)!, { jsonrpc: '2.0', id: 1, result: { task: { taskId: 'T1', status: 'working' } } })).toEqual({});
    const result = s.expect(request(2, 'tasks/result', { taskId: 'T1' }), ctx({ header: '2025-11-25' })).pending!;
    expect(result.expect).toEqual({ kind: 'rewrite', request: { upstream: 'u', method: 'tasks/result', tool: 'typed', revision: '2025-11-25', policy } });
    // A task of a tool without a schema is nativeOnly, like its call.
    s.expect(call(3, 'plain'), ctx());
    s.settle(s.pending.answer(3)!, { jsonrpc: '2.0', id: 3, result: { task: { taskId: 'T3' } } });
    expect(s.expect(request(4, 'tasks/result', { taskId: 'T3' }), ctx()).pending?.expect).toMatchObject({ nativeOnly: true, request: { tool: 'plain' } });
  });

  it('registers no tasks/result for a task it never saw created (or created by something other than tools/call)', () => {
    const s = state();
    expect(s.expect(request(1, 'tasks/result', { taskId: 'unknown' }), ctx()).pending).toBeUndefined();
    const routed = s.expect(request(2, 'resources/read', { uri: 'x' }), ctx({ routeAll: true })).pending!;
    s.settle(s.pending.answer(2)!, { jsonrpc: '2.0', id: 2, result: { task: { taskId: 'T2' } } });
    expect(s.expect(request(3, 'tasks/result', { taskId: 'T2' }), ctx()).pending).toBeUndefined();
    expect(routed.expect.kind).toBe('route');
  });

  it('keeps at most maxTasks task → tool entries', () => {
    const s = new SessionState({ upstream: 'u', bridge: true, maxTasks: 1 });
    for (const [id, taskId] of [[1, 'A'], [2, 'B']] as const) {
      s.expect(call(id, 'typed'), ctx());
      s.settle(s.pending.answer(id)! as Pending, { jsonrpc: '2.0', id, result: { task: { taskId } } });
    }
    expect(s.expect(request(3, 'tasks/result', { taskId: 'A' }), ctx()).pending).toBeUndefined();
    expect(s.expect(request(4, 'tasks/result', { taskId: 'B' }), ctx()).pending).toBeDefined();
  });
});
