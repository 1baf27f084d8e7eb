/**
 * `list`: Markdown lists, each an array of its items' texts. An item starts with `-`, `*` or `+`, or a number
 * and `.` or `)`, then a space; lines indented to the item's content (a wrapped line, a second paragraph, a
 * nested list) continue it and are joined with single spaces, as Markdown renders a soft line break.
 * Blank lines may separate items (a loose list). The list ends at a line that neither starts an item of the
 * same kind (a different bullet or delimiter starts another list) nor is indented into the current one, so
 * prose right after a list is not swallowed (CommonMark would take an unindented line directly after an
 * item as a lazy continuation). Thematic breaks (`* * *`) and lines inside code fences are not items. The
 * marker (and an ordered item's number) is not part of the text; the text is otherwise kept as written,
 * markdown included. One pass over the lines.
 */

/** Longest text the list reading looks at (UTF-16 code units). */
export const LIST_MAX_INPUT = 16 * 1024 * 1024;

const ITEM = /^( {0,3})([-*+]|\d{1,9}[.)])(?:( {1,4}|\t)(.*))?$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

interface Open {
  /** The marker's kind: the bullet character, or `.`/`)` for ordered items. */
  readonly kind: string;
  /** Where the item's text starts: lines indented this far continue it. */
  content: number;
  readonly items: string[];
  parts: string[];
}

function indentOf(line: string): number {
  let n = 0;
  for (const c of line) {
    if (c === ' ') n++;
    else if (c === '\t') n += 4 - (n % 4);
    else break;
  }
  return n;
}

/** `* * *`, `---`, `___` (three or more of one, spaces between): a thematic break. Checked without a regex
 * (a backreference over a long line would recurse too deep). */
function isBreak(line: string): boolean {
  const t = line.replace(/[ \t]+/g, '');
  const c = t[0];
  if ((c !== '-' && c !== '*' && c !== '_') || t.length < 3 || indentOf(line) > 3) return false;
  for (let i = 1; i < t.length; i++) if (t[i] !== c) return false;
  return true;
}

function item(line: string): { kind: string; content: number; text: string } | undefined {
  if (isBreak(line)) return undefined;
  const m = ITEM.exec(line);
  if (!m) return undefined;
  const marker = m[2]!;
  const kind = /\d/.test(marker) ? marker.slice(-1) : marker;
  const gap = m[3] === undefined ? 1 : m[3] === '\t' ? 2 : m[3].length;
  return { kind, content: m[1]!.length + marker.length + gap, text: (m[4] ?? '').trim() };
}

function close(list: Open): void {
  list.items.push(list.parts.filter((p) => p !== '').join(' '));
  list.parts = [];
}

/** Every list in `text`, in order (lazily), each as its items' texts. Texts over LIST_MAX_INPUT yield nothing. */
export function* extractLists(text: string): Generator<string[]> {
  if (text.length > LIST_MAX_INPUT) return;
  let list: Open | undefined;
  let fence: string | undefined;
  for (const line of text.split(/\r\n|\n|\r/)) {
    if (fence !== undefined) {
      if (line.trimStart().startsWith(fence)) fence = undefined;
      continue;
    }
    // A fence indented into an item is part of its text; any other fence ends the list, and is skipped.
    const marker = list && indentOf(line) >= list.content ? undefined : FENCE.exec(line)?.[1];
    if (marker !== undefined) {
      if (list) {
        close(list);
        yield list.items;
        list = undefined;
      }
      fence = marker[0]!.repeat(3);
      continue;
    }
    if (line.trim() === '') continue;
    const start = item(line);
    if (list && indentOf(line) >= list.content) {
      list.parts.push(line.trim());
      continue;
    }
    if (list && start && start.kind === list.kind) {
      close(list);
      list.content = start.content;
      list.parts.push(start.text);
      continue;
    }
    if (list) {
      close(list);
      yield list.items;
      list = undefined;
    }
    if (start) list = { kind: start.kind, content: start.content, items: [], parts: [start.text] };
  }
  if (list) {
    close(list);
    yield list.items;
  }
}
