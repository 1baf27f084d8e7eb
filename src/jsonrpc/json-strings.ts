/**
 * Where a JSON string closes: the first quote after its opening one that no odd run of backslashes escapes.
 * The one place every scanner that crosses JSON strings without parsing asks it (the depth checks of
 * ./strict.ts, a batch's element spans, the member names an over-long message's ends show), over text or over
 * its UTF-8 bytes alike: a quote and a backslash are ASCII, and no byte of a multi-byte character is either.
 */

/**
 * Bytes looked at one by one before a native search takes over: escaped quotes in a JSON text inside a string
 * sit a few bytes apart, and a call into the native search per quote cost more than the look (a 22 MB event:
 * 90 → 14 ms as bytes, 38 → 22 ms as a string); a long run without a quote is still crossed natively.
 */
const NEAR = 32;

/** Where the string opened by the quote at `open` closes (the index of its closing quote), or -1: it does not. */
export function stringEnd(text: string, open: number): number {
  let at = open + 1;
  for (;;) {
    const near = Math.min(at + NEAR, text.length);
    while (at < near && text.charCodeAt(at) !== 0x22) at++;
    if (at === near) {
      if (near === text.length) return -1;
      at = text.indexOf('"', at);
      if (at === -1) return -1;
    }
    // Escaped when an odd number of backslashes stands before it.
    let before = at - 1;
    while (text.charCodeAt(before) === 0x5c) before--;
    if ((at - 1 - before) % 2 === 0) return at;
    at++;
  }
}

/**
 * Where the string whose contents start at `from` closes (the index of its closing quote); -1: it does not
 * close; ~at (below -1) when `stop` came first, `at` being where to go on (the bytes before it hold no
 * closing quote).
 */
export function bytesStringEnd(bytes: Uint8Array, from: number, stop = Infinity): number {
  let at = from;
  for (;;) {
    if (at >= stop && at < bytes.length) return ~at;
    const near = Math.min(at + NEAR, bytes.length);
    while (at < near && bytes[at] !== 0x22) at++;
    if (at === near) {
      if (near === bytes.length) return -1;
      at = bytes.indexOf(0x22, at);
      if (at === -1) return -1;
    }
    let before = at - 1;
    while (bytes[before] === 0x5c) before--;
    if ((at - 1 - before) % 2 === 0) return at;
    at++;
  }
}
