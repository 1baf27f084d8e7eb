/**
 * Putting a worker's already serialised result (UTF-8 JSON bytes) into what the client receives without
 * re-serialising or re-encoding it: its JSON-RPC envelope, a batch (an SSE event takes them as they are:
 * src/stream/sse.ts encodeEvent). The only work left on the main thread is one copy of the bytes.
 */
import type { JsonObject } from '../../json.js';

/** `message` with its `result` replaced by `result` (JSON bytes), as JSON bytes; `result` comes last. */
export function spliceResult(message: JsonObject, result: Buffer): Buffer {
  const { result: _result, ...envelope } = message;
  const head = JSON.stringify(envelope);
  const open = head.length > 2 ? `${head.slice(0, -1)},"result":` : '{"result":';
  return Buffer.concat([Buffer.from(open, 'utf8'), result, Buffer.from('}')]);
}

/** Messages of a body, each as JSON bytes or as a value to serialise, joined (a batch) or the one message. */
export function joinMessages(parts: readonly (Buffer | unknown)[], batch: boolean): Buffer {
  const bytes = parts.map((p) => (Buffer.isBuffer(p) ? p : Buffer.from(JSON.stringify(p), 'utf8')));
  if (!batch) return bytes[0] ?? Buffer.alloc(0);
  const out: Buffer[] = [Buffer.from('[')];
  bytes.forEach((b, i) => out.push(...(i > 0 ? [Buffer.from(','), b] : [b])));
  out.push(Buffer.from(']'));
  return Buffer.concat(out);
}
