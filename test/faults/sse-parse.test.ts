/**
 * The fault clients' SSE reader (./sse-parse.ts): the byte-exact comparison of proxied streams rests on it,
 * so it is checked against every line ending, every split of the bytes into chunks, and an endless event.
 */
import { describe, expect, it } from 'vitest';
import { SseReader, type SseEvent } from './sse-parse.js';

/** Feed `text` cut at every position in turn into two chunks; every cut must give the same events. */
function everySplit(text: string): SseEvent[][] {
  const bytes = Buffer.from(text);
  const out: SseEvent[][] = [];
  for (let at = 0; at <= bytes.length; at++) {
    const reader = new SseReader();
    out.push([...reader.push(bytes.subarray(0, at)), ...reader.push(bytes.subarray(at))]);
  }
  return out;
}

describe('the fault clients\' SSE reader', () => {
  it('reads events with LF, CRLF and CR line ends, whatever the chunks, each with its exact bytes', () => {
    const stream = ': comment\nretry: 5\n\nevent: message\r\nid: 7\r\ndata: {"a":\r\ndata: 1}\r\n\r\ndata: x\r\rdata: y\n\n';
    for (const events of everySplit(stream)) {
      expect(events.map((e) => e.data)).toEqual([undefined, '{"a":\n1}', 'x', 'y']);
      expect(events[1]).toMatchObject({ event: 'message', id: '7' });
      expect(Buffer.concat(events.map((e) => e.raw)).toString()).toBe(stream);
    }
  });

  it('keeps only the size of an event past its bound, and reads on after it', () => {
    const reader = new SseReader();
    const filler = Buffer.alloc(1024 * 1024, 'x');
    const events = [...reader.push(Buffer.from('data: '))];
    for (let i = 0; i < 9; i++) events.push(...reader.push(filler));
    events.push(...reader.push(Buffer.from('\n\ndata: next\n\n')));
    expect(events).toHaveLength(2);
    expect(events[0]!.overlong).toBe(9 * 1024 * 1024 + 8);
    expect(events[0]!.data).toBeUndefined();
    expect(events[1]!.data).toBe('next');
  });
});
