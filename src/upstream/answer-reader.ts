/**
 * Reading the answer to one POST of a link that speaks Streamable HTTP to an upstream itself (./http-session-
 * link.ts, ./modern-link.ts): a JSON body or an SSE stream, each message handed on as it arrives. Bounded: a
 * JSON body or SSE event over `maxBytes` is dropped as it comes (never held whole) and reported with the id read
 * from its ends; one nested deeper than MAX_DEPTH too. While `paused()` gives a promise, nothing more is read.
 * A reader that takes bytes (`bytes: true`) gets a message past OFFLOAD_BYTES as its UTF-8 bytes, gathered in
 * shared memory as they came and never decoded here; like a link's bytes (LinkFrame), they are not checked
 * here either: whoever takes them checks them.
 */
import type { Readable } from 'node:stream';
import { decodedBody, decodedCoding } from './exchange.js';
import { endsOf, headNamesAnswer, sniffResponseId } from '../jsonrpc/sniff.js';
import { nestedTooDeeply } from '../jsonrpc/strict.js';
import { OFFLOAD_BYTES } from '../pipeline/offload/plan.js';
import { HeldBytes } from '../stream/held.js';
import { SseSplitter } from '../stream/sse.js';
import type { LinkDropped, LinkHttpAnswer } from './link.js';

interface ReaderCommon {
  readonly maxBytes: number;
  readonly dropped: (dropped: LinkDropped) => void;
  /** A promise while the reader must wait (the session is backed up). */
  readonly paused: () => Promise<void> | undefined;
  /** Each complete SSE event's `id:` and `retry:`, when it has either: where a resumption of the stream starts. */
  readonly position?: (id: string | undefined, retry: number | undefined) => void;
}

export type AnswerReaderOptions = ReaderCommon &
  (
    | {
        /** One message's JSON text. */
        readonly message: (data: string) => void;
        readonly bytes?: false;
      }
    | {
        /** One message's JSON text, or past OFFLOAD_BYTES its bytes, unchecked (see the module comment). */
        readonly message: (data: string | Buffer) => void;
        readonly bytes: true;
      }
  );

function idOf(head: string, tail: string): { id?: string | number } {
  const id = sniffResponseId({ head, tail });
  return id === undefined ? {} : { id };
}

/** One message, unless it is nested too deeply. */
function pass(data: string, o: AnswerReaderOptions): void {
  if (nestedTooDeeply(data)) {
    const ends = endsOf(data);
    o.dropped({ reason: 'depth', bytes: data.length, ...idOf(ends.head, ends.tail) });
    return;
  }
  o.message(data);
}

/** Bytes of each end of an over-long body kept to find the id it answers. */
const ENDS = 1024;

/** A JSON body: its one message. */
export async function readJsonAnswer(body: Readable, o: AnswerReaderOptions): Promise<void> {
  const held = new HeldBytes(o.bytes ? OFFLOAD_BYTES : Infinity, o.maxBytes);
  let size = 0;
  let head: Buffer | undefined;
  let tail: Buffer | undefined;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (head === undefined) {
      held.push(chunk);
      if (size <= o.maxBytes) continue;
      // Over the bound: only both ends are kept from here on.
      head = Buffer.from(held.head(ENDS));
      tail = Buffer.from(held.tail(ENDS));
      held.clear();
    } else {
      tail = Buffer.concat([tail!, chunk]).subarray(-ENDS);
    }
  }
  if (head !== undefined) {
    o.dropped({ reason: 'size', bytes: size, ...idOf(head.toString('utf8'), tail!.toString('utf8')) });
    return;
  }
  const whole = held.take();
  if (o.bytes && whole.length > OFFLOAD_BYTES) return o.message(whole);
  const text = whole.toString('utf8');
  if (text.trim() !== '') pass(text, o);
}

/** An SSE stream: each `message` event's data, as it comes. */
export async function readSseAnswer(body: Readable, o: AnswerReaderOptions): Promise<void> {
  // An over-long event that names its answer's id up front is reported at once: the upstream may never end it.
  const splitter = new SseSplitter({ maxEventBytes: o.maxBytes, reportEarly: headNamesAnswer, ...(o.bytes && { sharedFrom: OFFLOAD_BYTES }) });
  for await (const chunk of body as AsyncIterable<Buffer>) {
    for (const event of splitter.push(chunk)) {
      if (o.position && event.complete && (event.id !== undefined || event.retry !== undefined)) o.position(event.id, event.retry);
      if (event.overlong) o.dropped({ reason: 'size', bytes: event.overlong.bytes, ...idOf(event.overlong.head, event.overlong.tail) });
      else if (!event.complete || (event.event !== undefined && event.event !== 'message')) continue;
      else if (event.dataBytes && o.bytes) o.message(event.dataBytes);
      else if (event.data.length > 0) {
        // An event with empty data (the 2025-11-25 priming event) carries no message, as the SDK clients read it.
        const data = event.data.join('\n');
        if (data !== '') pass(data, o);
      }
    }
    const waiting = o.paused();
    if (waiting) await waiting;
  }
}

/** How much of the body of an answer that is not a message (a refusal, a 202's word) is kept. */
export const ANSWER_BODY_BYTES = 64 * 1024;

/** At most `max` bytes of an answer's body; the rest is discarded (the connection is closed for it). */
export async function boundedBody(body: Readable, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const room = max - size;
      chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
      size += Math.min(chunk.length, room);
      if (size >= max) {
        body.destroy();
        break;
      }
    }
  } catch {
    // A body cut off: what arrived is the answer.
  }
  return Buffer.concat(chunks, size);
}

/**
 * An upstream's HTTP answer that is not a message stream (a refusal such as a 401 and its challenge, a 202), as
 * a client may be shown it: its body decoded (./exchange.ts) and bounded to ANSWER_BODY_BYTES, and its
 * headers without the coding that no longer applies.
 */
export async function httpAnswer(res: { readonly statusCode: number; readonly headers: Readonly<Record<string, string | string[] | undefined>>; readonly body: Readable }): Promise<LinkHttpAnswer> {
  const body = await boundedBody(decodedBody(res.headers, res.body), ANSWER_BODY_BYTES);
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) headers[name] = value;
  if (decodedCoding(res.headers) !== undefined) {
    delete headers['content-encoding'];
    delete headers['content-length'];
  }
  return { status: res.statusCode, headers, body };
}
