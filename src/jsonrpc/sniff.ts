/**
 * The JSON-RPC id of a response without parsing it: for messages too large to parse on the event loop (they
 * go to a worker unparsed) or too large to keep at all (over maxResultBytes: the request still needs its
 * error). Serialisers put `id` either first (after `jsonrpc`) or last (the SDKs emit
 * `{"result":…,"jsonrpc":"2.0","id":1}`), so the first and last bytes are enough.
 */

/** Bounded samples of both ends of a message, decoded as UTF-8. */
export interface MessageEnds {
  readonly head: string;
  readonly tail: string;
}

/** How many bytes of each end are worth looking at. */
export const SNIFF_BYTES = 512;

/** Both ends of `data`, SNIFF_BYTES each. */
export function endsOf(data: Buffer | string): MessageEnds {
  const n = SNIFF_BYTES;
  if (typeof data === 'string') return { head: data.slice(0, n), tail: data.slice(-n) };
  return { head: data.subarray(0, n).toString('utf8'), tail: data.subarray(-n).toString('utf8') };
}

const ID = String.raw`(-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*")`;
const HEAD_ID = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${ID}`);
const TAIL_ID = new RegExp(String.raw`[,{]\s*"id"\s*:\s*${ID}\s*\}\s*$`);
const LEADING_METHOD = /^\s*\{\s*(?:"[^"]*"\s*:\s*(?:"[^"]*"|-?\d+)\s*,\s*)*"method"\s*:/;

/**
 * Best-effort id of a response; undefined when the message looks like a request or notification (a `method`
 * up front) or no id is found. A wrong guess costs nothing: whoever acts on it checks the parsed message.
 */
export function sniffResponseId(ends: MessageEnds): string | number | undefined {
  if (LEADING_METHOD.test(ends.head)) return undefined;
  const match = HEAD_ID.exec(ends.head) ?? TAIL_ID.exec(ends.tail);
  const raw = match?.[1];
  if (raw === undefined) return undefined;
  try {
    const id: unknown = JSON.parse(raw);
    return typeof id === 'string' || typeof id === 'number' ? id : undefined;
  } catch {
    return undefined;
  }
}
