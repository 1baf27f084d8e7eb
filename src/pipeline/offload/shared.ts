/**
 * Text a worker hands back as UTF-8 bytes in shared memory: passed on to the session (and to a worker again)
 * without the copy a transferred ArrayBuffer costs when it is posted on (as the large messages the links hold:
 * src/stream/held.ts).
 */
export function sharedUtf8(text: string): Buffer {
  const bytes = Buffer.from(new SharedArrayBuffer(Buffer.byteLength(text)));
  bytes.write(text);
  return bytes;
}

/** A message's text, from its text or its UTF-8 bytes (read where they are, not copied first). */
export function utf8Text(data: Uint8Array | string): string {
  return typeof data === 'string' ? data : asBuffer(data).toString('utf8');
}

/** Bytes (a worker's view of them) as a Buffer over the same memory. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
