/** Feeding an SseSplitter a stream in pieces, as the tests of src/stream/ do. */
import { SseSplitter, type SseEvent, type SseSplitterOptions } from '../../../src/stream/sse.js';

/** Feed `input` cut at the given offsets (any order, duplicates and out-of-range ones ignored); returns every block. */
export function split(input: Buffer, cuts: readonly number[] = [], options?: SseSplitterOptions): SseEvent[] {
  const splitter = new SseSplitter(options);
  const out: SseEvent[] = [];
  let start = 0;
  for (const cut of [...new Set(cuts)].filter((c) => c > 0 && c < input.length).sort((a, b) => a - b)) {
    out.push(...splitter.push(input.subarray(start, cut)));
    start = cut;
  }
  out.push(...splitter.push(input.subarray(start)), ...splitter.end());
  return out;
}
