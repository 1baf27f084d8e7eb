import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { classifyMessage, REWRITTEN_METHODS } from '../../../src/jsonrpc/classify.js';
import { createLogger } from '../../../src/log.js';
import type { PendingRequest, RewriteInput, Rewriter, Rewritten } from '../../../src/pipeline/rewrite.js';
import { inspectMessage } from '../../../src/pipeline/offload/inspect.js';
import { inbound, inboundParsed, type Inbound } from '../../../src/session/inbound.js';
import type { PendingOptions } from '../../../src/session/pending.js';
import { SessionState } from '../../../src/session/state.js';
import { upstreamWith } from '../retrofit/helpers.js';

const log = createLogger({ level: 'silent', destination: { write: () => undefined } });
const policy = upstreamWith({ typed: { outputSchema: { type: 'object' } }, plain: {} });

interface Call {
  readonly request: PendingRequest;
  readonly input: RewriteInput;
}

/** A stand-in for the pipeline: records its calls, answers with `answer` (sync, or async when `async`). */
function fake(answer: (input: RewriteInput, request: PendingRequest) => Rewritten, options: { rawThreshold?: number; async?: boolean } = {}): Rewriter & { calls: Call[] } {
  const calls: Call[] = [];
  return {
    calls,
    needsRewrite: (method) => REWRITTEN_METHODS.has(method),
    ...(options.rawThreshold !== undefined && { rawThreshold: options.rawThreshold }),
    respond(request, input) {
      calls.push({ request, input });
      const out = answer(input, request);
      return options.async ? Promise.resolve(out) : out;
    },
    reshape: () => undefined,
    inspect: () => undefined,
    demux: () => undefined,
    leavesUnread: () => false,
    passedUnread: () => {},
    projectNative: () => undefined,
    prepare: () => undefined,
    close: () => Promise.resolve(),
  };
}

const original = (input: RewriteInput): JsonObject => input.message ?? { jsonrpc: '2.0', id: input.id, result: {} };
/** The pipeline rewriting every result to `{ rewritten: <id> }`. */
const rewriting = (input: RewriteInput): Rewritten => {
  const message = original(input);
  return { kind: 'message', message: { ...message, result: { rewritten: message.id ?? null } }, original: message };
};
const unchanged = (input: RewriteInput): Rewritten => ({ kind: 'unchanged', original: original(input) });

function session(pending?: PendingOptions): SessionState {
  return new SessionState({ upstream: 'u', bridge: true, ...(pending && { pending }) });
}

/** Register a client request as it goes upstream. */
function send(state: SessionState, id: number | string, method: string, params: JsonObject = {}, header = '2025-11-25'): void {
  state.expect(classifyMessage({ jsonrpc: '2.0', id, method, params }), { header, policy });
}

const result = (id: number | string, result: JsonObject = { content: [{ type: 'text', text: '{}' }] }): JsonObject => ({ jsonrpc: '2.0', id, result });
const text = (value: unknown): string => JSON.stringify(value);

describe('inbound: what is parsed at all', () => {
  it('parses nothing while nothing is pending, not even invalid JSON, unless always', async () => {
    const state = session();
    const rewriter = fake(rewriting);
    expect(await inbound(state, rewriter, text(result(1)), log)).toEqual({ messages: [], batch: false });
    expect(await inbound(state, rewriter, 'not json', log)).toEqual({ messages: [], batch: false });
    expect(await inbound(state, rewriter, text(result(1)), log, { always: true })).toEqual({ messages: [{ message: result(1) }], batch: false });
    expect(await inbound(state, rewriter, 'not json', log, { always: true })).toEqual({ messages: [], batch: false, invalid: true });
    expect(rewriter.calls).toEqual([]);
  });

  it('with only nativeOnly rewrites pending, skips data without "structuredContent" (and the request stays pending)', async () => {
    const state = session();
    const rewriter = fake(rewriting);
    send(state, 1, 'tools/call', { name: 'plain' });
    expect(state.pending.onlyNative).toBe(true);
    expect(await inbound(state, rewriter, Buffer.from(text(result(1))), log)).toEqual({ messages: [], batch: false });
    expect(rewriter.calls).toEqual([]);
    expect(state.pending.has(1)).toBe(true);

    const native = result(1, { content: [], structuredContent: { a: 1 } });
    const handled = await inbound(state, rewriter, Buffer.from(text(native)), log);
    expect(rewriter.calls).toHaveLength(1);
    expect(handled.out).toBe(text({ ...native, result: { rewritten: 1 } }));
    expect(state.pending.has(1)).toBe(false);
  });
});

describe('inbound: answers to pending requests', () => {
  it('sends an answer to a pending rewrite to respond, and serialises its replacement', async () => {
    const state = session();
    const rewriter = fake(rewriting);
    send(state, 7, 'tools/call', { name: 'typed' });
    const handled = await inbound(state, rewriter, text(result(7)), log);
    expect(rewriter.calls).toEqual([{ request: { upstream: 'u', method: 'tools/call', tool: 'typed', revision: '2025-11-25', policy }, input: { message: result(7), literals: expect.any(Function) } }]);
    expect(typeof handled.out).toBe('string');
    expect(JSON.parse(handled.out as string)).toEqual({ ...result(7), result: { rewritten: 7 } });
    expect(handled.messages).toHaveLength(1);
    expect(handled.messages[0]).toMatchObject({ message: result(7), pending: { id: 7, method: 'tools/call' }, replaced: { result: { rewritten: 7 } } });
    expect(state.pending.has(7)).toBe(false);
  });

  it('sends nothing new when the pipeline leaves the answer unchanged, or for messages nobody waits for', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'typed' });
    const handled = await inbound(state, fake(unchanged), text(result(1)), log);
    expect(handled.out).toBeUndefined();
    expect(handled.messages[0]?.pending?.id).toBe(1);

    send(state, 2, 'tools/call', { name: 'typed' });
    const rewriter = fake(rewriting);
    const stranger = await inbound(state, rewriter, text(result('x')), log);
    expect(stranger).toEqual({ messages: [{ message: result('x') }], batch: false });
    expect(rewriter.calls).toEqual([]);
    expect(state.pending.has(2)).toBe(true);
  });

  it('matches an answer whose id differs only in JSON type ("2" for 2), and writes it under the request\'s id', async () => {
    const state = session();
    send(state, 2, 'tools/call', { name: 'typed' });
    const handled = await inbound(state, fake(unchanged), text(result('2')), log);
    expect(handled.messages[0]?.pending?.id).toBe(2);
    expect(JSON.parse(handled.out as string)).toEqual(result(2));
    expect(state.pending.has(2)).toBe(false);
    // An exact match wins: "2" answers the request "2" while 2 waits.
    send(state, 2, 'tools/call', { name: 'typed' });
    send(state, '2', 'tools/call', { name: 'typed' });
    expect((await inbound(state, fake(unchanged), text(result('2')), log)).messages[0]?.pending?.id).toBe('2');
    expect(state.pending.has(2)).toBe(true);
  });

  it('rewrites a replayed answer (retained for replays) the same way again', async () => {
    const state = session({ retainAnsweredMs: 60_000 });
    const rewriter = fake(rewriting);
    send(state, 1, 'tools/call', { name: 'typed' });
    const first = await inbound(state, rewriter, text(result(1)), log);
    const replay = await inbound(state, rewriter, text(result(1)), log);
    expect(replay.out).toBe(first.out);
    expect(first.out).toBeDefined();
    expect(rewriter.calls).toHaveLength(2);
  });

  it('answers an initialize that bridges with the client\'s revision, without the pipeline', async () => {
    const state = session();
    const rewriter = fake(rewriting);
    send(state, 0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, undefined as never);
    const init = { jsonrpc: '2.0', id: 0, result: { protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } };
    const handled = await inbound(state, rewriter, text(init), log);
    expect(JSON.parse(handled.out as string)).toEqual({ ...init, result: { ...init.result, protocolVersion: '2025-11-25' } });
    expect(rewriter.calls).toEqual([]);
    expect(state.clientRevision).toBe('2025-11-25');
  });

  it('says invalid for data that is not JSON', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'typed' });
    expect(await inbound(state, fake(rewriting), '{"jsonrpc":"2.0","id":1,', log)).toEqual({ messages: [], batch: false, invalid: true });
    expect(state.pending.has(1)).toBe(true);
  });
});

describe('inbound: batches', () => {
  it('keeps the order, and changes only the members that changed', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'typed' });
    send(state, 2, 'tools/call', { name: 'typed' });
    const note = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'x' } };
    const rewriter = fake((input) => (original(input).id === 2 ? rewriting(input) : unchanged(input)));
    const handled = await inbound(state, rewriter, text([result(1), note, result(2), result(99)]), log);
    expect(handled.batch).toBe(true);
    expect(JSON.parse(handled.out as string)).toEqual([result(1), note, { ...result(2), result: { rewritten: 2 } }, result(99)]);
    expect(handled.messages.map((m) => m.pending?.id)).toEqual([1, undefined, 2, undefined]);
  });

  it('with split (gateway-owned sessions), gives each message its own JSON: as the upstream wrote it, or the rewrite', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'typed' });
    send(state, 2, 'tools/call', { name: 'typed' });
    const elements = ['{"jsonrpc":"2.0", "id":1,"result":{"content":[]}}', '{"jsonrpc":"2.0","method":"n","params":{"x":1.0,"s":"\\u00e9"}}', text(result(2))];
    const data = `[ ${elements.join(' ,\n')} ]`;
    const rewriter = fake((input) => (original(input).id === 2 ? rewriting(input) : unchanged(input)));
    const split = await inbound(state, rewriter, data, log, { always: true, strict: true, split: true });
    expect(split.messages.map((m) => m.json)).toEqual([elements[0], elements[1], text({ ...result(2), result: { rewritten: 2 } })]);
    expect(split.messages.map((m) => m.pending?.id)).toEqual([1, undefined, 2]);
    // Without split (the HTTP proxy sends the batch whole): nothing more.
    send(state, 3, 'tools/call', { name: 'typed' });
    const whole = await inbound(state, rewriter, `[${text(result(3))}]`, log);
    expect(whole.messages.map((m) => m.json)).toEqual([undefined]);
  });

  it('with split, gives each message of a large batch read on the worker its own bytes, never the worker\'s stub', async () => {
    const state = session();
    state.expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'x:y' } }), { header: '2025-11-25', policy, routeAll: true });
    const elements = [text({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'é'.repeat(500) } }), text(result(1, { contents: [{ uri: 'x:y', text: 'x'.repeat(500) }] }))];
    const data = Buffer.from(`[${elements.join(', ')}]`);
    const rewriter = { ...fake(unchanged, { rawThreshold: 100 }), inspect: (bytes: Uint8Array | string) => Promise.resolve(inspectMessage(bytes)) };
    const handled = await inbound(state, rewriter, data, log, { always: true, strict: true, split: true });
    expect(handled.batch).toBe(true);
    expect(handled.messages.map((m) => (Buffer.isBuffer(m.json) ? m.json.toString('utf8') : m.json))).toEqual(elements);
    // The session decided by the stubs: the answer took its request off the table.
    expect(handled.messages.map((m) => m.message.params ?? m.message.result)).toEqual([{}, {}]);
    expect(handled.messages[1]?.pending?.id).toBe(1);
    expect(state.pending.has(1)).toBe(false);
  });

  it('writes a rewritten member again with the number literals a double cannot hold as the upstream wrote them', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'typed' });
    send(state, 2, 'tools/call', { name: 'typed' });
    send(state, 3, 'tools/call', { name: 'typed' });
    // The rewrite keeps _meta (by identity) and adds a member, as the engine adds structuredContent.
    const keeping = (input: RewriteInput): Rewritten => {
      const message = original(input);
      return { kind: 'message', message: { ...message, result: { ...(message.result as JsonObject), added: Number('12345678901234567890') } }, original: message };
    };
    const meta = '{"n":12345678901234567890,"x":[0.1000000000000000055511151231257827]}';
    const element = (id: number): string => `{"jsonrpc":"2.0","id":${id},"result":{"content":[],"_meta":${meta}}}`;
    const written = (id: number): string => `{"jsonrpc":"2.0","id":${id},"result":{"content":[],"_meta":${meta},"added":12345678901234567000}}`;
    const one = await inbound(state, fake(keeping), element(1), log);
    expect(one.out).toBe(written(1));
    const batch = await inbound(state, fake(keeping), `[${element(2)},{"jsonrpc":"2.0","method":"n","params":{"v":9007199254740993}}]`, log);
    // The batch is written again whole: its other members keep theirs too.
    expect(String(batch.out)).toBe(`[${written(2)},{"jsonrpc":"2.0","method":"n","params":{"v":9007199254740993}}]`);
    const split = await inbound(state, fake(keeping), `[${element(3)}]`, log, { always: true, split: true });
    expect(split.messages.map((m) => m.json)).toEqual([written(3)]);
  });

  it('leaves a batch with a member that is not an object as it came', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'typed' });
    const handled = await inbound(state, fake(rewriting), text([result(1), 42]), log);
    expect(handled.out).toBeUndefined();
    expect(handled.batch).toBe(true);
  });
});

describe('inbound: raw data over the rewriter\'s rawThreshold', () => {
  const big = (id: number | string): string => text({ result: { content: [{ type: 'text', text: 'x'.repeat(2000) }] }, jsonrpc: '2.0', id });

  it('hands a large answer to a pending rewrite over unparsed, its id read from its ends, and sends the bytes back', async () => {
    const state = session();
    const bytes = Buffer.from('{"rewritten":"by a worker"}');
    const rewriter = fake((input) => ({ kind: 'bytes', bytes, original: { jsonrpc: '2.0', id: input.raw !== undefined ? input.id : null, result: { task: { taskId: 'T' } } } }), { rawThreshold: 100 });
    send(state, 5, 'tools/call', { name: 'typed' });
    const data = Buffer.from(big(5));
    const handled = await inbound(state, rewriter, data, log);
    expect(rewriter.calls).toHaveLength(1);
    expect(rewriter.calls[0]!.input).toEqual({ raw: data, id: 5 });
    expect(rewriter.calls[0]!.input.raw).toBe(data);
    expect(handled.out).toBe(bytes);
    expect(handled.messages[0]?.pending?.id).toBe(5);
    // The bookkeeping the parsed path does, on the worker's stub: answered, and the task's tool remembered.
    expect(state.pending.has(5)).toBe(false);
    send(state, 6, 'tasks/result', { taskId: 'T' });
    expect(state.pending.peek(6)?.expect).toMatchObject({ kind: 'rewrite', request: { tool: 'typed' } });
  });

  it('parses data under the threshold, and large data whose id nobody waits for', async () => {
    const state = session();
    const rewriter = fake(rewriting, { rawThreshold: 100 });
    send(state, 1, 'tools/call', { name: 'typed' });
    await inbound(state, rewriter, text(result(1)), log);
    send(state, 2, 'tools/call', { name: 'typed' });
    await inbound(state, rewriter, big('x'), log);
    expect(rewriter.calls.map((c) => c.input.message !== undefined)).toEqual([true]);
    expect(state.pending.has(2)).toBe(true);
  });

  it('falls back to the parsed path on a mismatch', async () => {
    const state = session();
    send(state, 3, 'tools/call', { name: 'typed' });
    const parsed = JSON.parse(big(3)) as JsonObject;
    const rewriter = fake((input) => (input.raw !== undefined ? { kind: 'mismatch', parsed } : rewriting(input)), { rawThreshold: 100 });
    const handled = await inbound(state, rewriter, big(3), log);
    expect(rewriter.calls.map((c) => Object.keys(c.input))).toEqual([['raw', 'id'], ['message', 'literals']]);
    expect(JSON.parse(handled.out as string)).toEqual({ ...parsed, result: { rewritten: 3 } });

    send(state, 4, 'tools/call', { name: 'typed' });
    const unparsed = fake((input) => (input.raw !== undefined ? { kind: 'mismatch' } : rewriting(input)), { rawThreshold: 100 });
    expect(JSON.parse((await inbound(state, unparsed, big(4), log)).out as string)).toMatchObject({ id: 4, result: { rewritten: 4 } });
  });

  it('gives the same result with a synchronous and an asynchronous respond', async () => {
    const run = async (async: boolean): Promise<{ parsed: Inbound; raw: Inbound; batch: Inbound }> => {
      const state = session();
      const bytes = Buffer.from('{"jsonrpc":"2.0","id":2,"result":{"w":1}}');
      const rewriter = fake((input) => (input.raw !== undefined ? { kind: 'bytes', bytes, original: { jsonrpc: '2.0', id: input.id, result: {} } } : rewriting(input)), { rawThreshold: 1000, async });
      send(state, 1, 'tools/call', { name: 'typed' });
      send(state, 2, 'tools/call', { name: 'typed' });
      send(state, 3, 'tools/call', { name: 'typed' });
      const parsed = inbound(state, rewriter, text(result(1)), log);
      expect(parsed instanceof Promise).toBe(async);
      return { parsed: await parsed, raw: await inbound(state, rewriter, big(2), log), batch: await inboundParsed(state, rewriter, [result(3), result(4)], log) };
    };
    // Everything but the clock the entries were started at.
    const timeless = (all: Record<string, Inbound>): unknown => JSON.parse(JSON.stringify(all, (key, value: unknown) => (key === 'started' ? 0 : value)));
    const sync = await run(false);
    expect(timeless(await run(true))).toEqual(timeless(sync));
    expect(JSON.parse(sync.batch.out as string)).toEqual([{ ...result(3), result: { rewritten: 3 } }, result(4)]);
  });
});

describe('inbound: strict answers (gateway-owned sessions)', () => {
  const STRICT = { always: true, strict: true } as const;

  it('takes an answer a strict client would drop off the table, unsettled and unrewritten, with its problem', async () => {
    const state = session();
    const rewriter = fake(rewriting);
    send(state, 1, 'tools/call', { name: 'typed' });
    send(state, 2, 'initialize', { protocolVersion: '2025-06-18' });
    send(state, 3, 'tools/call', { name: 'typed' });
    const one = await inbound(state, rewriter, text({ jsonrpc: '1.0', id: 1, result: { content: [] } }), log, STRICT);
    expect(one.messages).toMatchObject([{ pending: { id: 1 }, problem: 'jsonrpc is not "2.0"' }]);
    expect(one.out).toBeUndefined();
    const init = await inbound(state, rewriter, text({ jsonrpc: '2.0', id: 2 }), log, STRICT);
    expect(init.messages).toMatchObject([{ pending: { id: 2 }, problem: 'a response has a result or an error' }]);
    // Nothing settled: no revision was negotiated from it; nothing was rewritten.
    expect(state.negotiated).toBeUndefined();
    expect(rewriter.calls).toEqual([]);
    expect(state.pending.size).toBe(1);
    // Not strict (the proxy): the same message is an answer as any other.
    const loose = await inbound(state, rewriter, text({ jsonrpc: '1.0', id: 3, result: {} }), log, { always: true });
    expect(loose.messages[0]?.problem).toBeUndefined();
    expect(rewriter.calls).toHaveLength(1);
  });

  it('holds a request with the same id to be no answer, and routes a message for no pending request as usual', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'typed' });
    const rewriter = fake(rewriting);
    const request = await inbound(state, rewriter, text({ jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: {} }), log, STRICT);
    expect(request.messages[0]?.problem).toBeUndefined();
    const stray = await inbound(state, rewriter, text({ jsonrpc: '1.0', id: 9, result: {} }), log, STRICT);
    expect(stray.messages).toEqual([{ message: { jsonrpc: '1.0', id: 9, result: {} } }]);
    expect(state.pending.has(1)).toBe(true);
  });

  it('checks what the pipeline parsed of a large answer, and drops one answered meanwhile', async () => {
    const state = session();
    send(state, 4, 'tools/call', { name: 'typed' });
    const invalid: JsonObject = { jsonrpc: '2.0', id: 4, result: { content: [] }, error: { code: 1, message: 'both' } };
    const rewriter = fake((input) => ({ kind: 'unchanged', original: input.message ?? invalid }), { rawThreshold: 10 });
    const handled = await inbound(state, rewriter, text(invalid), log, STRICT);
    expect(handled.messages).toMatchObject([{ pending: { id: 4 }, problem: 'a response has a result or an error, not both' }]);
    expect(state.pending.has(4)).toBe(false);

    send(state, 5, 'tools/call', { name: 'typed' });
    const slow = fake((input) => {
      state.pending.release(5); // its deadline passed while the worker ran
      return { kind: 'unchanged', original: { jsonrpc: '2.0', id: input.raw !== undefined ? input.id : null, result: {} } };
    }, { rawThreshold: 10 });
    const late = await inbound(state, slow, text(result(5)), log, STRICT);
    expect(late.messages).toEqual([{ message: { jsonrpc: '2.0', id: 5, result: {} } }]);
  });
});


describe('inbound: a large batch read on the worker, with answers to rewrite', () => {
  /** The fake pipeline reading on the real inspection, rewriting each raw answer into worker-like bytes; `passed`: what passedUnread got. */
  function onWorker(answer: (input: RewriteInput, request: PendingRequest) => Rewritten, unread: (tool: string | undefined) => boolean = () => false): Rewriter & { calls: Call[]; passed: string[] } {
    const passed: string[] = [];
    return {
      ...fake(answer, { rawThreshold: 100, async: true }),
      inspect: (bytes: Uint8Array | string) => Promise.resolve(inspectMessage(bytes)),
      leavesUnread: (request) => unread(request.tool),
      passedUnread: (_request, raw) => void passed.push(raw.toString('utf8')),
      passed,
    };
  }
  const workerBytes = (input: RewriteInput): Rewritten => {
    if (input.raw === undefined) return rewriting(input);
    return { kind: 'bytes', bytes: Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(input.id)},"result":{"by":"worker"}}`), original: { jsonrpc: '2.0', id: input.id, result: {} } };
  };
  const note = text({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'é'.repeat(200) } });
  const own = (id: number, extra = ''): string => `{"jsonrpc": "2.0","id":${id},"result":{"content":[{"type":"text","text":"${'x'.repeat(200)}"}]${extra}}}`;

  it('hands each answer to rewrite over as its own bytes, and joins the batch in order around the worker\'s bytes', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'typed' });
    send(state, 3, 'tools/call', { name: 'typed' });
    // Nobody waits for 2 (an answer the proxy does not read): it goes as it came.
    const elements = [own(1), note, own(2), own(3)];
    const data = Buffer.from(`[ ${elements.join(' ,\n')} ]`);
    const rewriter = onWorker(workerBytes);
    const handled = await inbound(state, rewriter, data, log);
    expect(rewriter.calls.map((c) => c.input.raw?.toString())).toEqual([elements[0], elements[3]]);
    expect(rewriter.calls.map((c) => (c.input.raw !== undefined ? c.input.id : undefined))).toEqual([1, 3]);
    const worker = (id: number): string => `{"jsonrpc":"2.0","id":${id},"result":{"by":"worker"}}`;
    expect(handled.out?.toString()).toBe(`[${worker(1)},${note},${elements[2]},${worker(3)}]`);
    expect(handled.messages.map((m) => m.pending?.id)).toEqual([1, undefined, undefined, 3]);
    expect(state.pending.size).toBe(0);
    // With split (gateway-owned sessions): each message its own JSON, the same bytes.
    send(state, 1, 'tools/call', { name: 'typed' });
    send(state, 3, 'tools/call', { name: 'typed' });
    const split = await inbound(state, rewriter, data, log, { always: true, strict: true, split: true });
    expect(split.messages.map((m) => m.json?.toString())).toEqual([worker(1), note, elements[2], worker(3)]);
  });

  it('books an answer the pipeline leaves unread with its own bytes, and sends nothing new when nothing changed', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'plain' });
    send(state, 2, 'tools/call', { name: 'typed' });
    const elements = [own(1), own(2)];
    const rewriter = onWorker(unchanged, (tool) => tool === 'plain');
    const handled = await inbound(state, rewriter, Buffer.from(`[${elements.join(',')}]`), log);
    expect(handled.out).toBeUndefined();
    expect(rewriter.passed).toEqual([elements[0]]);
    expect(rewriter.calls.map((c) => c.input.raw?.toString())).toEqual([elements[1]]);
    expect(state.pending.size).toBe(0);
  });

  it('reads the batch whole on a mismatch, and when an element is no object (it then goes as it came)', async () => {
    const state = session();
    send(state, 1, 'tools/call', { name: 'typed' });
    const mismatch = onWorker((input) => (input.raw !== undefined ? { kind: 'mismatch' } : rewriting(input)));
    const handled = await inbound(state, mismatch, Buffer.from(`[${own(1)},${note}]`), log);
    expect(mismatch.calls.map((c) => Object.keys(c.input))).toEqual([['raw', 'id'], ['message', 'literals']]);
    expect(JSON.parse(handled.out!.toString())).toMatchObject([{ id: 1, result: { rewritten: 1 } }, JSON.parse(note)]);

    send(state, 2, 'tools/call', { name: 'typed' });
    const stray = onWorker(workerBytes);
    const whole = await inbound(state, stray, Buffer.from(`[${own(2)},42]`), log);
    expect(stray.calls.map((c) => Object.keys(c.input))).toEqual([['message', 'literals']]);
    expect(whole.out).toBeUndefined();
  });
});
