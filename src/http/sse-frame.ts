/**
 * Writing SSE to a client: one `message` event per JSON-RPC message, as the SDK servers frame them
 * (`event: message`, then `id:` when the stream is resumable, then one `data:` line), and the response
 * headers every SSE answer carries. The one place that frames what the gateway itself writes.
 */
import type { OutgoingHttpHeaders } from 'node:http';

/** Headers of every SSE answer the gateway writes itself. */
export const SSE_HEADERS: Readonly<OutgoingHttpHeaders> = Object.freeze({
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
});

/** A keep-alive comment (clients ignore it; intermediaries see traffic). */
export const KEEP_ALIVE = Buffer.from(': keepalive\n\n');

const HEAD = Buffer.from('event: message\n');
const DATA = Buffer.from('data: ');
const END = Buffer.from('\n\n');

/** JSON text (or bytes) as one data line: JSON has line breaks only as whitespace, which become spaces. */
function oneLine(json: string | Buffer): Buffer {
  if (typeof json === 'string') return Buffer.from(json.includes('\n') || json.includes('\r') ? json.replace(/\r?\n|\r/g, ' ') : json, 'utf8');
  if (json.indexOf(0x0a) === -1 && json.indexOf(0x0d) === -1) return json;
  const copy = Buffer.from(json);
  for (let i = 0; i < copy.length; i++) if (copy[i] === 0x0a || copy[i] === 0x0d) copy[i] = 0x20;
  return copy;
}

/** One `message` event carrying `json`, with `id` when given. */
export function messageEvent(json: string | Buffer, id?: string): Buffer {
  const parts: Buffer[] = [HEAD];
  if (id !== undefined) parts.push(Buffer.from(`id: ${id}\n`));
  parts.push(DATA, oneLine(json), END);
  return Buffer.concat(parts);
}

/** The priming event a resumable stream starts with: an id to resume from, the reconnection delay, no data. */
export function primingEvent(id: string, retryMs: number): Buffer {
  return Buffer.from(`id: ${id}\nretry: ${retryMs}\ndata: \n\n`);
}
