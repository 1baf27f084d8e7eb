/**
 * Where a JSON pointer's value sits in a tool's text, so the page can highlight it. The text is a JSON value
 * (or several, one per text block), JSON inside prose, or `key: value` lines; the scanner reads JSON spans
 * without recursion (an explicit stack: the text is a peer's), and lines are searched by key as a fallback.
 */

/** A half-open range of the text: [start, end). */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** The pointer's form of one key (RFC 6901). */
function escapeToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

function unescapeToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}

interface Frame {
  readonly kind: 'object' | 'array';
  readonly pointer: string;
  readonly start: number;
  index: number;
  key: string | null;
  keyStart: number;
}

const LITERAL = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;
const ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };

/**
 * Scans one JSON value starting at `from`. Returns the span of every value by pointer (for an object's member:
 * from its key to the end of its value) and where the value ended, or null when the text there is not JSON.
 */
export function scanJson(text: string, from: number): { spans: Map<string, Span>; end: number } | null {
  const spans = new Map<string, Span>();
  const stack: Frame[] = [];
  let i = from;
  let state = 'value' as 'value' | 'key' | 'after';

  const skipSpace = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i] ?? '')) i++;
  };
  const readString = (): string | null => {
    let out = '';
    for (let j = i + 1; j < text.length; ) {
      const c = text[j] ?? '';
      if (c === '"') {
        i = j + 1;
        return out;
      }
      if (c === '\\') {
        const n = text[j + 1] ?? '';
        if (n === 'u') {
          out += String.fromCharCode(parseInt(text.slice(j + 2, j + 6), 16));
          j += 6;
        } else {
          out += ESCAPES[n] ?? n;
          j += 2;
        }
        continue;
      }
      out += c;
      j++;
    }
    return null;
  };
  const childPointer = (parent: Frame | undefined): string =>
    parent === undefined ? '' : `${parent.pointer}/${parent.kind === 'array' ? String(parent.index) : escapeToken(parent.key ?? '')}`;
  // A value ended at i: record it; true when it was the root.
  const finish = (start: number): boolean => {
    const parent = stack.at(-1);
    spans.set(childPointer(parent), { start: parent?.kind === 'object' ? parent.keyStart : start, end: i });
    return parent === undefined;
  };
  const close = (): boolean => {
    const frame = stack.pop();
    i++;
    return frame === undefined ? false : finish(frame.start);
  };

  for (;;) {
    skipSpace();
    const c = text[i];
    if (c === undefined) return null;
    const top = stack.at(-1);
    if (state === 'key') {
      if (top === undefined) return null;
      if (c === '}' && top.index === 0) {
        if (close()) return { spans, end: i };
        state = 'after';
        continue;
      }
      if (c !== '"') return null;
      top.keyStart = i;
      top.key = readString();
      if (top.key === null) return null;
      skipSpace();
      if (text[i] !== ':') return null;
      i++;
      state = 'value';
    } else if (state === 'after') {
      if (top === undefined) return null;
      if (c === ',') {
        i++;
        top.index++;
        top.key = null;
        state = top.kind === 'object' ? 'key' : 'value';
      } else if (c === (top.kind === 'object' ? '}' : ']')) {
        if (close()) return { spans, end: i };
      } else return null;
    } else if (c === ']' && top?.kind === 'array' && top.index === 0) {
      if (close()) return { spans, end: i };
      state = 'after';
    } else if (c === '{' || c === '[') {
      stack.push({ kind: c === '{' ? 'object' : 'array', pointer: childPointer(top), start: i, index: 0, key: null, keyStart: i });
      i++;
      state = c === '{' ? 'key' : 'value';
    } else if (c === '"') {
      const start = i;
      if (readString() === null) return null;
      if (finish(start)) return { spans, end: i };
      state = 'after';
    } else {
      LITERAL.lastIndex = i;
      const m = LITERAL.exec(text);
      if (m === null) return null;
      const start = i;
      i += m[0].length;
      if (finish(start)) return { spans, end: i };
      state = 'after';
    }
  }
}

/**
 * The JSON values in the text, in order: the first one starting at a `{` or `[` that scans, and those that
 * follow it (several text blocks). Bounded: at most 32 starts are tried.
 */
function jsonValues(text: string): Map<string, Span>[] {
  const values: Map<string, Span>[] = [];
  let tries = 0;
  for (let i = text.search(/[[{]/); i !== -1 && i < text.length && tries < 32; tries++) {
    const found = scanJson(text, i);
    if (found === null) {
      if (values.length > 0) break;
      const next = text.slice(i + 1).search(/[[{]/);
      i = next === -1 ? -1 : i + 1 + next;
      continue;
    }
    values.push(found.spans);
    const next = text.slice(found.end).search(/\S/);
    i = next === -1 ? -1 : found.end + next;
  }
  return values;
}

/** Finds `key:` / `key =` / `"key":` on a line and spans the line from the key. */
function byKey(text: string, pointer: string): Span | null {
  const tokens = pointer.split('/').slice(1).map(unescapeToken);
  const key = tokens.filter((t) => !/^\d+$/.test(t)).at(-1);
  if (key === undefined || key === '') return null;
  const quoted = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(^|[\\s{,\\[-])(["']?${quoted}["']?\\s*[:=])`, 'm');
  const m = re.exec(text);
  if (m === null) return null;
  const start = m.index + (m[1]?.length ?? 0);
  const eol = text.indexOf('\n', start);
  return { start, end: eol === -1 ? text.length : eol };
}

/**
 * Where pointers' values are in one text: the text is scanned once, then each pointer is looked up (a text of
 * 16 KiB with many failing pointers stays cheap). Null when a pointer's place cannot be found.
 */
export function locator(text: string): (pointer: string) => Span | null {
  const values = jsonValues(text);
  return (pointer) => find(values, text, pointer);
}

function find(values: readonly Map<string, Span>[], text: string, pointer: string): Span | null {
  const single = values.length === 1 ? values[0]?.get(pointer) : undefined;
  if (single !== undefined) return single;
  if (values.length > 1) {
    // One value per text block: the structured value is their array, so "/k/…" is in the k-th one.
    const m = /^\/(\d+)(\/.*)?$/.exec(pointer);
    const span = m === null ? undefined : values[Number(m[1])]?.get(m[2] ?? '');
    if (span !== undefined) return span;
  }
  if (pointer === '') return null;
  return values.length > 0 ? null : byKey(text, pointer);
}
