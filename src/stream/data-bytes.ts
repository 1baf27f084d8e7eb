/**
 * The data of a large SSE block as bytes, never decoded: the values of its `data:` lines joined with "\n" (as
 * the WHATWG rules join them), found by native searches over the block's bytes. A block past the size at which
 * a message goes to a worker keeps its data so (src/stream/sse.ts `dataBytes`), whether the upstream wrote it on
 * one line or split it over many (JSON allows a newline between tokens): decoding and joining 30 MB of lines
 * on the event loop, then parsing them there, would stall every other session.
 */

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const SPACE = 0x20;
const DATA = Buffer.from('data');
/**
 * Stands in for each data line in the rest of the block, its line end kept: taking the line out would join a CR
 * before it and a LF after it into one CRLF, or leave a blank line that ends the block early.
 */
const STAND_IN = Buffer.from('x');
/** Opens the rest: a field nobody reads, so that a byte-order mark after it is never taken for the stream's. */
const GUARD = Buffer.from('x\n');

/** A block's data lines, apart from its other lines. */
export interface DataLines {
  /** Each data line's value (views of the block's bytes), in order. */
  readonly values: readonly Buffer[];
  /** The block without its data (each data line a field nobody reads), to parse as a block: small. */
  readonly rest: Buffer;
}

/**
 * The data lines of one complete block; undefined when it has none. `atStart`: the block opens the stream, so a
 * byte-order mark before its first line is the stream's, not part of a field name.
 */
export function dataLines(raw: Buffer, atStart: boolean): DataLines | undefined {
  const values: Buffer[] = [];
  const rest: Buffer[] = [GUARD];
  const bom = atStart && raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf ? 3 : 0;
  let kept = bom;
  // The next LF and CR at or after the line under way (-1: none left; -2: not looked for yet): each is looked
  // for again only once passed, so a block of many lines is crossed once, not once per line.
  let nextLf = -2;
  let nextCr = -2;
  let start = bom;
  while (start < raw.length) {
    if (nextLf !== -1 && nextLf < start) nextLf = raw.indexOf(LF, start);
    if (nextCr !== -1 && nextCr < start) nextCr = raw.indexOf(CR, start);
    const end = nextLf === -1 ? nextCr : nextCr === -1 ? nextLf : Math.min(nextLf, nextCr);
    if (end === -1) break;
    if (isDataLine(raw, start, end)) {
      let from = start + DATA.length;
      if (from < end) from++;
      if (from < end && raw[from] === SPACE) from++;
      values.push(raw.subarray(from, end));
      rest.push(raw.subarray(kept, start), STAND_IN);
      kept = end;
    }
    start = end + (raw[end] === CR && raw[end + 1] === LF ? 2 : 1);
  }
  if (values.length === 0) return undefined;
  rest.push(raw.subarray(kept));
  return { values, rest: Buffer.concat(rest) };
}

/** The field is `data`: the line is `data` alone or starts `data:`. */
function isDataLine(raw: Buffer, start: number, end: number): boolean {
  const after = start + DATA.length;
  if (after > end || raw.compare(DATA, 0, DATA.length, start, after) !== 0) return false;
  return after === end || raw[after] === COLON;
}

/**
 * The values joined with "\n": one value as it is (a view, no copy); several copied once into shared memory, so
 * a worker takes them without another copy (as it takes the block's own bytes: ./held.ts).
 */
export function joinedData(values: readonly Buffer[]): Buffer {
  if (values.length === 1) return values[0]!;
  let size = values.length - 1;
  for (const value of values) size += value.length;
  const out = sharedOrNot(size);
  let at = values[0]!.copy(out, 0);
  for (let i = 1; i < values.length; i++) {
    out[at++] = LF;
    at += values[i]!.copy(out, at);
  }
  return out;
}

function sharedOrNot(size: number): Buffer {
  try {
    return Buffer.from(new SharedArrayBuffer(size));
  } catch {
    // No shared memory to be had: a buffer of its own, which a worker gets as a copy.
    return Buffer.allocUnsafeSlow(size);
  }
}
