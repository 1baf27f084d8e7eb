/**
 * Share mode with a fake child link (no process): ids remapped both ways, progress and cancellation,
 * broadcasts, server→client requests, initialize cached, a failed first initialize restarting the child, child
 * death fanned out, detach and the last detach.
 */
import { describe, expect, it } from 'vitest';
import fc from '../../helpers/fast-check.js';
import { RetrofitError } from '../../../src/errors.js';
import type { LinkClosed, LinkDropped, LinkFrame, SendOutcome, UpstreamLink } from '../../../src/upstream/link.js';
import { fromWire, toWire } from '../../../src/jsonrpc/multiplex.js';
import { demuxLine } from '../../../src/pipeline/offload/demux.js';
import { replaceAnswerId } from '../../../src/upstream/shared-ids.js';
import { HELD_SESSIONS, SharedStdio, type SharedStdioOptions } from '../../../src/upstream/shared-stdio.js';
import { captureLogger } from '../../helpers/stdio-gateway.js';

type Message = Record<string, unknown>;

/** The child's side: what it was sent, and a way to answer. */
class FakeChild implements UpstreamLink {
  onframe: (frame: LinkFrame) => void = () => {};
  ondropped: (dropped: LinkDropped) => void = () => {};
  onclose: (closed: LinkClosed) => void = () => {};
  readonly lines: string[] = [];
  alive = true;
  readonly pid: number;
  paused = false;
  pauses = 0;
  stopped = false;

  constructor(pid: number) {
    this.pid = pid;
  }

  get sent(): Message[] {
    return this.lines.map((l) => JSON.parse(l) as Message);
  }

  send(json: string): SendOutcome {
    if (!this.alive) return { ok: false, error: new RetrofitError('RETROFIT_ERR_UPSTREAM_EXITED', ['fake', 'gone']) };
    this.lines.push(json);
    return { ok: true };
  }

  emit(message: Message | string): void {
    this.onframe({ data: typeof message === 'string' ? message : JSON.stringify(message) });
  }

  die(closed: LinkClosed): void {
    this.alive = false;
    this.onclose(closed);
  }

  pause(): void {
    this.paused = true;
    this.pauses++;
  }

  resume(): void {
    this.paused = false;
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.die({ kind: 'requested', reason: 'stopped' });
  }
}

/** One session's side: what its virtual link handed it. */
function record(link: UpstreamLink) {
  const frames: string[] = [];
  const drops: LinkDropped[] = [];
  const closes: LinkClosed[] = [];
  link.onframe = (f) => frames.push(f.data.toString());
  link.ondropped = (d) => drops.push(d);
  link.onclose = (c) => closes.push(c);
  return { link, frames, got: () => frames.map((f) => JSON.parse(f) as Message), drops, closes, send: (m: Message) => link.send(JSON.stringify(m)) };
}

function setup(demux?: SharedStdioOptions['demux'], maxHeldBytes = 1 << 20) {
  const logs: Record<string, unknown>[] = [];
  const log = captureLogger(logs);
  const children: FakeChild[] = [];
  const cutOff: number[] = [];
  const shared = new SharedStdio({ upstream: 'fx', log, maxHeldBytes, oncutoff: () => cutOff.push(1), ...(demux && { demux }) });
  const spawn = (): UpstreamLink => {
    const child = new FakeChild(1000 + children.length);
    children.push(child);
    return child;
  };
  const open = () => record(shared.attach(log, spawn));
  const child = (i = 0): FakeChild => children[i]!;
  return { shared, children, child, open, logs, cutOff };
}

const request = (id: string | number, method = 'tools/call', params: Message = { name: 'echo' }): Message => ({ jsonrpc: '2.0', id, method, params });
const result = (id: unknown, value: unknown = {}): Message => ({ jsonrpc: '2.0', id, result: value });
const INIT_RESULT = { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'fx', version: '1' } };
/** Cached answers are handed over in a microtask, after send() returned. */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('share mode ids', () => {
  it('encodes the session and the original, keeping 1 and "1" apart', () => {
    expect(toWire(1, 1)).toBe('1~1');
    expect(toWire(1, '1')).toBe('1~"1"');
    expect(fromWire('12~"a~b"')).toEqual({ session: 12, value: 'a~b' });
    expect(fromWire('2~1')).toEqual({ session: 2, value: 1 });
    for (const foreign of [7, 'abc', '~1', '01~1', 'x~1', '1~{', '1~null']) expect(fromWire(foreign)).toBeUndefined();
  });

  it('replaces an answer id at either end, and only as written', () => {
    expect(replaceAnswerId('{"jsonrpc":"2.0","id":"1~0","result":{"id":"1~0"}}', '1~0', 0)).toBe('{"jsonrpc":"2.0","id":0,"result":{"id":"1~0"}}');
    expect(replaceAnswerId(`{"result":{"t":"${'x'.repeat(5000)}"},"jsonrpc":"2.0","id":"2~\\"a\\""}`, '2~"a"', 'a')).toMatch(/"id":"a"}$/);
    expect(replaceAnswerId('{"result":{},"jsonrpc":"2.0","id":"1\\u007e0"}', '1~0', 0)).toBeUndefined();
  });

  it('replaces an answer id in bytes in place, padded with spaces, to the JSON the text path gives', () => {
    fc.assert(
      fc.property(fc.nat(999), fc.oneof(fc.integer(), fc.string({ unit: 'binary', maxLength: 12 })), fc.boolean(), fc.string({ maxLength: 40 }), (session, value, last, text) => {
        const wire = toWire(session, value);
        const result = { content: [{ type: 'text', text }] };
        const json = JSON.stringify(last ? { result, jsonrpc: '2.0', id: wire } : { jsonrpc: '2.0', id: wire, result });
        const viaText = replaceAnswerId(json, wire, value);
        expect(viaText).toBeDefined();
        const bytes = Buffer.from(json);
        const viaBytes = replaceAnswerId(bytes, wire, value);
        // Bytes are read as latin1: a wire id with other characters is left to the text path.
        if (viaBytes === undefined) {
          expect(JSON.stringify(wire)).toMatch(/[^\x20-\x7e]/);
          return;
        }
        expect(viaBytes).toBe(bytes);
        expect(viaBytes.length).toBe(Buffer.byteLength(json));
        expect(JSON.parse(viaBytes.toString())).toEqual(JSON.parse(viaText!));
      }),
      { numRuns: 1000 },
    );
  });
});

describe('SharedStdio', () => {
  it('remaps colliding ids of two sessions and routes each answer back to its sender', () => {
    const { open, child, children } = setup();
    const a = open();
    const b = open();
    expect(children).toHaveLength(1);
    a.send(request(1));
    b.send(request(1));
    b.send(request('1'));
    expect(child().sent.map((m) => m.id)).toEqual(['1~1', '2~1', '2~"1"']);

    child().emit(result('2~"1"', { who: 'b-string' }));
    child().emit('{"result":{"who": "a"}, "jsonrpc":"2.0", "id": "1~1" }');
    child().emit({ jsonrpc: '2.0', id: '2~1', error: { code: -32602, message: 'no' } });
    expect(a.got()).toEqual([result(1, { who: 'a' })]);
    expect(b.got()).toEqual([result('1', { who: 'b-string' }), { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'no' } }]);
    // Answered by text: everything but the id as the child wrote it.
    expect(a.frames[0]).toBe('{"result":{"who": "a"}, "jsonrpc":"2.0", "id": 1 }');
  });

  it('hands a long answer that came as bytes to its session as those bytes, its id rewritten in place; sorts out anything else without decoding it', () => {
    const { open, child } = setup();
    const a = open();
    const frames: (string | Buffer)[] = [];
    a.link.onframe = (f) => frames.push(f.data);
    a.send(request(1));
    a.send(request(2));
    const answer = Buffer.from(JSON.stringify(result('1~1', { content: [{ type: 'text', text: 'x'.repeat(1000) }] })));
    child().onframe({ data: answer });
    expect(frames[0]).toBe(answer);
    expect(JSON.parse(answer.toString())).toEqual(result(1, { content: [{ type: 'text', text: 'x'.repeat(1000) }] }));
    // An answer is not checked here, however deep: its session checks it (LinkFrame).
    const deepAnswer = Buffer.from(`{"jsonrpc":"2.0","id":"1~2","result":${'['.repeat(600)}${']'.repeat(600)}}`);
    child().onframe({ data: deepAnswer });
    expect(frames[1]).toBe(deepAnswer);
    // Anything else is sorted out (here: no worker), checked first (too deep: dropped), and goes on as its bytes.
    const notification = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(1000) } }));
    child().onframe({ data: notification });
    expect(frames[2]).toBe(notification);
    child().onframe({ data: Buffer.from(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":${'['.repeat(600)}${']'.repeat(600)}}}`) });
    expect(frames).toHaveLength(3);
  });

  it('sorts out a long line on the worker while what the child says next waits its turn, the child held back', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const jobs: Buffer[] = [];
    const { open, child, logs } = setup((data) => {
      jobs.push(data);
      return gate.then(() => demuxLine(data));
    });
    const a = open();
    const frames: (string | Buffer)[] = [];
    a.link.onframe = (f) => frames.push(f.data);
    a.send(request(1, 'tools/call', { name: 'slow', _meta: { progressToken: 'p' } }));
    // Progress for the session's token (restored on the worker), then the answer as text.
    const progress = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: '1~"p"', progress: 1, message: 'z'.repeat(1000) } }));
    child().onframe({ data: progress });
    child().onframe({ data: JSON.stringify(result('1~1')) });
    expect(jobs).toEqual([progress]);
    expect(frames).toEqual([]);
    expect(child().paused).toBe(true);
    release();
    await gate;
    await settled();
    expect(frames).toHaveLength(2);
    expect(JSON.parse(frames[0]!.toString())).toEqual({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, message: 'z'.repeat(1000) } });
    expect(Buffer.isBuffer(frames[0])).toBe(true);
    expect(JSON.parse(frames[1] as string)).toEqual(result(1));
    expect(child().paused).toBe(false);
    expect(logs.some((l) => l.msg === 'share mode: a long line sorted out on a worker')).toBe(true);
  });

  it('keeps the text of messages with nothing to remap, and re-serialises batches once', () => {
    const { open, child } = setup();
    const a = open();
    const text = '{ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" }';
    a.link.send(text);
    a.link.send(JSON.stringify([request(5), { jsonrpc: '2.0', method: 'notifications/x' }]));
    expect(child().lines[0]).toBe(text);
    expect(JSON.parse(child().lines[1]!)).toEqual([request('1~5'), { jsonrpc: '2.0', method: 'notifications/x' }]);
  });

  it("writes the messages of the child's batch again with the number literals a double cannot hold as it wrote them", () => {
    const { open, child } = setup();
    const a = open();
    a.send(request(5));
    a.send(request(6));
    const answer = (id: string): string => `{"jsonrpc":"2.0","id":${id},"result":{"total":18446744073709551617,"_meta":{"n":12345678901234567890,"x":0.1000000000000000055511151231257827}}}`;
    const note = '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":[9007199254740993,1e400]}}';
    // On the event loop (a line as text), and as bytes sorted out (here: no worker, src/pipeline/offload/demux.ts).
    child().emit(`[${answer('"1~5"')},${note}]`);
    child().onframe({ data: Buffer.from(`[${answer('"1~6"')},"${'y'.repeat(1000)}"]`) });
    expect(a.frames).toEqual([answer('5'), note, answer('6')]);
  });

  it('sends a request to the child with the number literals a double cannot hold as the client wrote them, alone or in a batch', () => {
    const { open, child } = setup();
    const a = open();
    const call = (id: string): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"find","arguments":{"id":12345678901234567890,"x":0.1000000000000000055511151231257827}}}`;
    a.link.send(call('5'));
    // A batch: its second message, an answer to no request the child made of this session, is dropped.
    a.link.send(`[${call('6')},{"jsonrpc":"2.0","id":99,"result":{}}]`);
    expect(child().lines).toEqual([call('"1~5"'), `[${call('"1~6"')}]`]);
  });

  it('remaps progress tokens and routes progress back with the original token', () => {
    const { open, child } = setup();
    const a = open();
    const b = open();
    a.send(request(1, 'tools/call', { name: 'slow', _meta: { progressToken: 7 } }));
    b.send(request(1, 'tools/call', { name: 'slow', _meta: { progressToken: 7 } }));
    expect(child().sent.map((m) => (m.params as { _meta: { progressToken: unknown } })._meta.progressToken)).toEqual(['1~7', '2~7']);
    child().emit({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: '2~7', progress: 1 } });
    expect(a.got()).toEqual([]);
    expect(b.got()).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1 } }]);
  });

  it('remaps the request a cancellation names; the late answer is dropped', () => {
    const { open, child } = setup();
    const a = open();
    a.send(request(3));
    a.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3, reason: 'user' } });
    expect(child().sent[1]).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '1~3', reason: 'user' } });
    child().emit(result('1~3'));
    expect(a.got()).toEqual([]);
  });

  it('sends notifications without a session to every session, as the child wrote them', () => {
    const { open, child } = setup();
    const a = open();
    const b = open();
    const changed = '{"method":"notifications/tools/list_changed","jsonrpc":"2.0"}';
    child().emit(changed);
    child().emit({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } });
    expect(a.frames[0]).toBe(changed);
    expect(b.frames[0]).toBe(changed);
    expect(a.got()[1]).toMatchObject({ method: 'notifications/message' });
    expect(b.got()[1]).toMatchObject({ method: 'notifications/message' });
  });

  it('routes a server request by its progress token, else to the only busy session; the answer keeps its id', () => {
    const { open, child } = setup();
    const a = open();
    const b = open();
    a.send(request(1, 'tools/call', { name: 'ask', _meta: { progressToken: 'p' } }));
    b.send(request(1));
    child().emit({ jsonrpc: '2.0', id: 40, method: 'sampling/createMessage', params: { messages: [], _meta: { progressToken: '1~"p"' } } });
    expect(a.got()).toEqual([{ jsonrpc: '2.0', id: 40, method: 'sampling/createMessage', params: { messages: [], _meta: { progressToken: 'p' } } }]);
    expect(b.got()).toEqual([]);

    child().emit(result('1~1'));
    child().emit({ jsonrpc: '2.0', id: 41, method: 'elicitation/create', params: {} });
    expect(b.got()).toEqual([{ jsonrpc: '2.0', id: 41, method: 'elicitation/create', params: {} }]);

    // Only the session asked may answer, and its answer reaches the child with the child's id.
    a.send(result(41, { action: 'accept' }));
    b.send(result(41, { action: 'decline' }));
    a.send(result(40, { content: [] }));
    expect(child().sent.slice(2)).toEqual([result(41, { action: 'decline' }), result(40, { content: [] })]);
  });

  it('answers a server request no single session can take with an error, and warns', () => {
    const { open, child, logs } = setup();
    const a = open();
    const b = open();
    a.send(request(1));
    b.send(request(2));
    child().emit({ jsonrpc: '2.0', id: 9, method: 'roots/list' });
    expect(a.got()).toEqual([]);
    expect(b.got()).toEqual([]);
    expect(child().sent[2]).toMatchObject({ id: 9, error: { code: -32603, message: expect.stringContaining('share mode cannot route "roots/list"') } });
    expect(logs.find((l) => l.level === 40)).toMatchObject({ method: 'roots/list', sessions: 2, busy: 2 });
    // The gateway answers the child's pings itself.
    child().emit({ jsonrpc: '2.0', id: 10, method: 'ping' });
    expect(child().sent[3]).toEqual(result(10));
  });

  it('initializes the child once and answers later sessions from the cache', async () => {
    const { open, child } = setup();
    const a = open();
    const b = open();
    a.send(request(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'a', version: '1' } }));
    b.send(request(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'b', version: '1' } }));
    expect(child().sent.map((m) => [m.id, m.method])).toEqual([['1~0', 'initialize']]);
    // b waits for a's answer.
    expect(b.got()).toEqual([]);
    child().emit(result('1~0', INIT_RESULT));
    expect(a.got()).toEqual([result(0, INIT_RESULT)]);
    expect(b.got()).toEqual([result(0, INIT_RESULT)]);

    const c = open();
    c.send(request('init', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } }));
    await settled();
    expect(c.got()).toEqual([result('init', INIT_RESULT)]);
    for (const s of [a, b, c]) s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(child().sent.map((m) => m.method)).toEqual(['initialize', 'notifications/initialized']);
  });

  it.each([
    ['as text', false],
    ['as bytes sorted out (here: no worker)', true],
  ])('gives every session the InitializeResult with the number literals a double cannot hold as the child wrote them, %s', async (_label, bytes) => {
    const { open, child } = setup();
    const a = open();
    const b = open();
    for (const s of [a, b]) s.send(request(0, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 's', version: '1' } }));
    const init = '{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fx","version":"1"},"_meta":{"n":12345678901234567890,"x":0.1000000000000000055511151231257827}}';
    const line = `{"jsonrpc":"2.0","result":${init},"id":"1~0"}`;
    child().onframe({ data: bytes ? Buffer.from(line) : line });
    expect([...a.frames, ...b.frames]).toEqual([`{"jsonrpc":"2.0","result":${init},"id":0}`, `{"jsonrpc":"2.0","result":${init},"id":0}`]);
    // A later session is answered from the cache.
    const c = open();
    c.send(request('init', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } }));
    await settled();
    expect(c.frames).toEqual([`{"jsonrpc":"2.0","id":"init","result":${init}}`]);
  });

  it('restarts a child that answers its first initialize with an error: every waiting session gets the answer, and ends', async () => {
    const { open, child, children, logs } = setup();
    const a = open();
    const b = open();
    a.send(request(0, 'initialize', {}));
    b.send(request('b0', 'initialize', {}));
    child().emit({ jsonrpc: '2.0', id: '1~0', error: { code: -32602, message: 'bad version' } });
    expect(a.got()).toEqual([{ jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'bad version' } }]);
    expect(b.got()).toEqual([{ jsonrpc: '2.0', id: 'b0', error: { code: -32602, message: 'bad version' } }]);
    expect(child().stopped).toBe(true);
    for (const s of [a, b]) expect(s.closes).toMatchObject([{ kind: 'requested', reason: expect.stringContaining('failed its first initialize: it answered initialize with an error') }]);
    expect(logs.some((l) => l.msg === 'share mode: the child failed its first initialize; it is stopped, and the next session starts a new one')).toBe(true);
    // Never asked again: the next session's initialize goes to a new child.
    const c = open();
    c.send(request(0, 'initialize', {}));
    await settled();
    expect(children).toHaveLength(2);
    expect(child(0).sent.map((m) => m.id)).toEqual(['1~0']);
    expect(child(1).sent.map((m) => m.id)).toEqual(['3~0']);
  });

  it('restarts a child whose first initialize timed out: the sessions waiting for it get the asker\'s error; never a cancellation', () => {
    const { open, child, children } = setup();
    const a = open();
    const b = open();
    a.send(request(0, 'initialize', {}));
    b.send(request(7, 'initialize', {}));
    const timeout = new RetrofitError('RETROFIT_ERR_UPSTREAM_TIMEOUT', ['fx', 50]);
    // A waiter that gives up on its own only stops waiting.
    b.link.abandoned?.(7, 'initialize', timeout);
    expect(child().stopped).toBe(false);
    const c = open();
    c.send(request('c', 'initialize', {}));
    a.link.abandoned?.(0, 'initialize', timeout);
    expect(c.got()).toEqual([timeout.toJsonRpc('c')]);
    expect(b.got()).toEqual([]);
    expect(child().stopped).toBe(true);
    for (const s of [a, b, c]) expect(s.closes).toHaveLength(1);
    expect(child().sent.map((m) => m.method)).toEqual(['initialize']);
    open();
    expect(children).toHaveLength(2);
  });

  it('restarts a child whose first initialize was asked by a session that left before its answer', () => {
    const { open, child } = setup();
    const a = open();
    const b = open();
    a.send(request(0, 'initialize', {}));
    b.send(request(0, 'initialize', {}));
    void a.link.close();
    expect(child().stopped).toBe(true);
    expect(b.closes).toMatchObject([{ kind: 'requested', reason: expect.stringContaining('the session that asked for it closed before its answer') }]);
    expect(child().sent.map((m) => m.method)).toEqual(['initialize']);
  });

  it('restarts a child whose answer to its first initialize was dropped, telling every waiting session with its own id', () => {
    const { open, child } = setup();
    const a = open();
    const b = open();
    a.send(request(0, 'initialize', {}));
    b.send(request('x', 'initialize', {}));
    child().ondropped({ reason: 'depth', bytes: 300_000, id: '1~0' });
    expect(a.drops).toEqual([{ reason: 'depth', bytes: 300_000, id: 0 }]);
    expect(b.drops).toEqual([{ reason: 'depth', bytes: 300_000, id: 'x' }]);
    expect(child().stopped).toBe(true);
  });

  it('fans the child death out to every session and spawns a new child, initialized again, for the next', async () => {
    const { open, child, children, shared } = setup();
    const a = open();
    const b = open();
    a.send(request(0, 'initialize', {}));
    child().emit(result('1~0', INIT_RESULT));
    expect(shared.pid).toBe(1000);
    const died: LinkClosed = { kind: 'exited', reason: 'signal SIGKILL', stderr: 'boom' };
    child().die(died);
    expect(a.closes).toEqual([died]);
    expect(b.closes).toEqual([died]);
    expect(a.link.alive).toBe(false);
    expect(a.send(request(5))).toMatchObject({ ok: false });
    await a.link.close();
    expect(a.closes).toHaveLength(1);

    const c = open();
    expect(children).toHaveLength(2);
    expect(c.link.pid).toBe(1001);
    c.send(request(0, 'initialize', {}));
    expect(child(1).sent.map((m) => [m.id, m.method])).toEqual([['3~0', 'initialize']]);
  });

  it('cancels a detaching session\'s requests in flight, keeps the child, and stops it on the last detach', async () => {
    const { open, child, children } = setup();
    const a = open();
    const b = open();
    a.send(request(0, 'initialize', {}));
    child().emit(result('1~0', INIT_RESULT));
    a.send(request(1));
    a.send(request(2));
    b.send(request(1));
    child().emit(result('1~2'));
    await a.link.close();
    expect(a.closes).toMatchObject([{ kind: 'requested' }]);
    expect(child().stopped).toBe(false);
    expect(child().sent.slice(-1)).toEqual([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '1~1', reason: 'client session closed' } }]);
    // What the child still sends for it is dropped; b goes on.
    child().emit(result('1~1'));
    child().emit(result('2~1', { ok: 1 }));
    expect(a.got()).toEqual([result(0, INIT_RESULT), result(2)]);
    expect(b.got()).toEqual([result(1, { ok: 1 })]);

    await b.link.close();
    expect(child().stopped).toBe(true);
    expect(b.closes).toMatchObject([{ kind: 'requested' }]);
    open();
    expect(children).toHaveLength(2);
  });

  it('never pauses the child for a backed-up session: what is for it is held, in order, until it drains', () => {
    const { open, child, cutOff } = setup();
    const a = open();
    const b = open();
    const note = (n: number): Message => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: n } });
    child().emit(note(1));
    a.link.pause();
    child().emit(note(2));
    child().emit(note(3));
    expect(child().pauses).toBe(0);
    expect(b.got().map((m) => (m.params as Message).data)).toEqual([1, 2, 3]);
    expect(a.got().map((m) => (m.params as Message).data)).toEqual([1]);
    a.link.resume();
    expect(a.got().map((m) => (m.params as Message).data)).toEqual([1, 2, 3]);
    // Backed up again by the first of what it is given: the rest waits.
    a.link.pause();
    child().emit(note(4));
    child().emit(note(5));
    a.link.onframe = (f) => {
      a.frames.push(f.data.toString());
      a.link.pause();
    };
    a.link.resume();
    expect(a.got().map((m) => (m.params as Message).data)).toEqual([1, 2, 3, 4]);
    a.link.resume();
    expect(a.got().map((m) => (m.params as Message).data)).toEqual([1, 2, 3, 4, 5]);
    expect(cutOff).toEqual([]);
  });

  it('bounds what all backed-up sessions hold together: past HELD_SESSIONS × maxHeldBytes the one holding the most is ended', async () => {
    const { open, child, cutOff, logs } = setup(undefined, 1000);
    const reader = open();
    const stalled = Array.from({ length: 15 }, () => open());
    const note = (chars: number): Message => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(chars) } });
    // The first stalled client falls behind first: ~680 bytes held for it alone.
    stalled[0]!.link.pause();
    child().emit(note(600));
    for (const s of stalled.slice(1)) s.link.pause();
    // ~230 bytes more for each of the 15: the first then holds ~910 (under its own 1000), all of them together
    // pass 4 × 1000 at the 14th of the others, and the first, holding the most, is ended.
    child().emit(note(150));
    expect(HELD_SESSIONS).toBe(4);
    expect(cutOff).toEqual([1]);
    expect(logs.some((l) => l.level === 40 && String(l.why).includes('held more than 4 × limits.maxResultBytes together'))).toBe(true);
    await settled();
    expect(stalled[0]!.closes).toMatchObject([{ kind: 'requested', reason: expect.stringContaining('held more than') }]);
    expect(stalled.slice(1).every((s) => s.closes.length === 0)).toBe(true);
    // The others keep what they hold and get it once they read; the reader got everything as it came.
    expect(reader.frames).toHaveLength(2);
    stalled[5]!.link.resume();
    expect(stalled[5]!.frames).toHaveLength(2);
  });

  it('ends only the session whose client is backed up past maxHeldBytes; the child serves on', async () => {
    const { open, child, cutOff, logs } = setup(undefined, 1000);
    const a = open();
    const b = open();
    a.link.pause();
    const big: Message = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x'.repeat(600) } };
    child().emit(big);
    expect(a.closes).toEqual([]);
    child().emit(big);
    expect(cutOff).toEqual([1]);
    expect(logs.some((l) => l.level === 40 && String(l.msg).startsWith("share mode: a backed-up client's session is ended"))).toBe(true);
    await settled();
    expect(a.closes).toMatchObject([{ kind: 'requested', reason: expect.stringContaining('more than 1000 bytes (limits.maxResultBytes) waited') }]);
    expect(a.frames).toEqual([]);
    expect(b.frames).toHaveLength(2);
    expect(child().stopped).toBe(false);
    child().emit(big);
    expect(b.frames).toHaveLength(3);
  });

  it('tells only the asking session of an oversized answer, with its own id', () => {
    const { open, child } = setup();
    const a = open();
    const b = open();
    a.send(request(1));
    b.send(request(1));
    child().ondropped({ reason: 'size', bytes: 99, id: '2~1' });
    expect(a.drops).toEqual([]);
    expect(b.drops).toEqual([{ reason: 'size', bytes: 99, id: 1 }]);
  });
});
