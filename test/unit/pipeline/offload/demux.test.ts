import { describe, expect, it } from 'vitest';
import { demuxLine } from '../../../../src/pipeline/offload/demux.js';

/** A shared child's long line sorted out for routing (src/pipeline/offload/demux.ts). */
describe('demuxLine', () => {
  const text = 'y'.repeat(2_000);
  const json = (b: Buffer | undefined): unknown => (b === undefined ? undefined : JSON.parse(b.toString('utf8')));

  it('gives what a line is routed by, and its bytes with the wire token restored in shared memory', () => {
    const out = demuxLine(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'sampling/createMessage', params: { messages: [text], _meta: { progressToken: '3~"t"' } } })));
    expect(out.kind).toBe('messages');
    const [m] = out.kind === 'messages' ? out.messages : [];
    expect(m!.facts).toEqual({ object: true, hasId: true, id: 9, method: 'sampling/createMessage', metaToken: '3~"t"' });
    // Alone, the message is the line itself: no copy of it.
    expect(m!.json).toBeUndefined();
    expect(m!.restored!.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(json(m!.restored)).toEqual({ jsonrpc: '2.0', id: 9, method: 'sampling/createMessage', params: { messages: [text], _meta: { progressToken: 't' } } });
  });

  it('restores an answer id and a progress token, and nothing in a message without one', () => {
    const out = demuxLine(JSON.stringify([
      { result: { t: text }, jsonrpc: '2.0', id: '2~1' },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: '1~7', progress: 1 } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { data: text } },
      'stray',
    ]));
    if (out.kind !== 'messages') throw new Error(out.kind);
    expect(out.batch).toBe(true);
    expect(out.messages.map((m) => json(m.restored))).toEqual([{ result: { t: text }, jsonrpc: '2.0', id: 1 }, { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1 } }, undefined, undefined]);
    expect(json(out.messages[2]!.json)).toEqual({ jsonrpc: '2.0', method: 'notifications/message', params: { data: text } });
    expect(out.messages[3]!.facts).toEqual({ object: false, hasId: false });
  });

  it('writes each message with the number literals a double cannot hold as the line has them', () => {
    const meta = '{"n":12345678901234567890,"x":0.1000000000000000055511151231257827,"big":1e400}';
    const text = (b: Buffer | undefined): string | undefined => b?.toString('utf8');
    const batch = demuxLine(Buffer.from(`[{"jsonrpc":"2.0","id":"2~1","result":{"_meta":${meta}}},{"jsonrpc":"2.0","method":"notifications/message","params":{"data":9007199254740993}}]`));
    if (batch.kind !== 'messages') throw new Error(batch.kind);
    expect(batch.messages.map((m) => text(m.restored))).toEqual([`{"jsonrpc":"2.0","id":1,"result":{"_meta":${meta}}}`, undefined]);
    expect(batch.messages.map((m) => text(m.json))).toEqual([`{"jsonrpc":"2.0","id":"2~1","result":{"_meta":${meta}}}`, '{"jsonrpc":"2.0","method":"notifications/message","params":{"data":9007199254740993}}']);
    const alone = demuxLine(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"1~7","progress":18446744073709551617}}`);
    if (alone.kind !== 'messages') throw new Error(alone.kind);
    expect(text(alone.messages[0]!.restored)).toBe('{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":18446744073709551617}}');
  });

  it('names what is no JSON or too deep', () => {
    expect(demuxLine(Buffer.from('{"jsonrpc":"2.0",'))).toEqual({ kind: 'invalid' });
    expect(demuxLine(`{"jsonrpc":"2.0","method":"x","params":${'['.repeat(5_000)}${']'.repeat(5_000)}}`)).toEqual({ kind: 'deep' });
  });
});
