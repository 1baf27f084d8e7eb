/**
 * Server-Sent Events frames the gateway writes itself: the one encoder (./sse.ts reads frames). Every event the
 * gateway writes, or rewrote, is made here; the rest is forwarded raw.
 */
import type { SseEvent } from './sse.js';

const LF = 0x0a;
const CR = 0x0d;

/** The fields of an event other than its data, in the order they are written. */
export type EventFields = Pick<SseEvent, 'id' | 'event' | 'retry'> & { readonly comments?: readonly string[] };

const LINE_BREAK = /\r\n|\r|\n/;
const END_OF_EVENT = Buffer.from('\n\n');
const MESSAGE_HEAD = Buffer.from('event: message\ndata: ');

/** Bytes as one `data:` value: JSON has line breaks only as whitespace between tokens, so they become spaces. */
function oneLine(json: Buffer): Buffer {
  if (json.indexOf(LF) === -1 && json.indexOf(CR) === -1) return json;
  const copy = Buffer.from(json);
  for (let i = 0; i < copy.length; i++) if (copy[i] === LF || copy[i] === CR) copy[i] = 0x20;
  return copy;
}

/**
 * The one SSE frame encoder: comments, `event:`, `id:`, `retry:`, then the data, then the blank line that
 * dispatches it. Text data gets one `data:` line per line; bytes (serialised JSON, e.g. a worker's) are one
 * `data:` line. Every event the gateway writes itself, or rewrote, is made here; the rest is forwarded raw.
 */
export function encodeEvent(fields: EventFields, data: string | Buffer): Buffer {
  if (Buffer.isBuffer(data)) return Buffer.concat(eventPieces(fields, data));
  let head = fieldLines(fields);
  for (const line of data.split(LINE_BREAK)) head += `data: ${line}\n`;
  return Buffer.from(`${head}\n`, 'utf8');
}

/**
 * encodeEvent's frame for bytes, in its three pieces (the fields and `data: `, the data, the blank line),
 * the data not copied: a large rewritten event (a worker's tens of megabytes) is written piece by piece
 * rather than copied into one buffer first.
 */
export function eventPieces(fields: EventFields, data: Buffer): readonly Buffer[] {
  return [Buffer.from(`${fieldLines(fields)}data: `, 'utf8'), oneLine(data), END_OF_EVENT];
}

/** An event's bytes: one buffer, or the pieces of a large one, each written as it is (see eventPieces). */
export type EventBytes = Buffer | readonly Buffer[];

/** Message bytes from which messageEventBytes leaves them in place rather than copying them into the frame. */
const PIECES_FROM = 64 * 1024;

/**
 * messageEvent for a message that may be large (a worker's bytes): from PIECES_FROM bytes up the event is its
 * pieces, the message not copied once more to frame it.
 */
export function messageEventBytes(json: string | Buffer, id?: string): EventBytes {
  if (typeof json === 'string' || json.length < PIECES_FROM) return messageEvent(json, id);
  return eventPieces({ event: 'message', ...(id !== undefined && { id }) }, json);
}

/** How many bytes an event is. */
export function eventLength(bytes: EventBytes): number {
  if (Buffer.isBuffer(bytes)) return bytes.length;
  let n = 0;
  for (const piece of bytes) n += piece.length;
  return n;
}

/** An event's lines before its data: comments, `event:`, `id:`, `retry:`. */
function fieldLines(fields: EventFields): string {
  let head = '';
  if (fields.comments) for (const comment of fields.comments) head += `:${comment}\n`;
  if (fields.event !== undefined) head += `event: ${fields.event}\n`;
  if (fields.id !== undefined) head += `id: ${fields.id}\n`;
  if (fields.retry !== undefined) head += `retry: ${fields.retry}\n`;
  return head;
}

/**
 * One `message` event carrying a JSON-RPC message (its JSON text or bytes), with `id` when the stream is
 * resumable: the frame the SDK servers write.
 */
export function messageEvent(json: string | Buffer, id?: string): Buffer {
  const bytes = typeof json === 'string' ? Buffer.from(json, 'utf8') : json;
  // The usual case (no id) without building a header string.
  if (id === undefined) return Buffer.concat([MESSAGE_HEAD, oneLine(bytes), END_OF_EVENT]);
  return encodeEvent({ event: 'message', id }, bytes);
}

/** The priming event a resumable stream starts with: an id to resume from, the reconnection delay, no data. */
export function primingEvent(id: string, retryMs: number): Buffer {
  return encodeEvent({ id, retry: retryMs }, '');
}

/** A keep-alive comment (clients ignore it; intermediaries see traffic). */
export const KEEP_ALIVE: Buffer = Buffer.from(': keepalive\n\n');
