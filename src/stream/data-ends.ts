/**
 * The ends of an SSE block's data, for a block too long to keep: the gateway drops it as it arrives but keeps
 * its first and last bytes, and these read the start of its first `data:` value and the end of its last one —
 * enough for the id sniffer (src/jsonrpc/sniff.ts) to name the answer it was.
 */

/** Bytes of each end of an over-long block kept for sniffing. */
export const ENDS = 512;

const FIELD_LINE = /^(?:id|event|retry)(?::|$)|^:/;

/** The start of a block's first `data:` value (the JSON text the id sniffer reads), from its first bytes. */
export function dataHead(headBytes: Buffer): string {
  const head = headBytes.toString('utf8');
  const at = head.search(/(?:^|[\r\n])data:/);
  const from = at < 0 ? -1 : head.indexOf('data:', at) + 5;
  const rest = from < 0 ? '' : head.slice(from).replace(/^ /, '');
  return rest.split(/\r\n|\r|\n/, 1)[0] ?? '';
}

/** The end of a block's last `data:` value, from its last bytes (trailing field lines such as `id:` left out). */
export function dataTail(tailBytes: Buffer): string {
  const lines = tailBytes.toString('utf8').split(/\r\n|\r|\n/);
  while (lines.length > 1 && (lines.at(-1) === '' || FIELD_LINE.test(lines.at(-1)!))) lines.pop();
  const last = lines.at(-1) ?? '';
  return last.startsWith('data:') ? last.slice(5).replace(/^ /, '') : last;
}
