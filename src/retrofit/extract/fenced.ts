/**
 * `fenced`: the first Markdown code fence labelled `json` (or unlabelled) whose body is one JSON value, as
 * chat-tuned servers write it. Fences labelled with another language are skipped whole. One forward pass.
 */
import type { Json } from '../../json.js';
import { parseJsonExact } from './exact-json.js';

const FENCE = '```';

export function extractFenced(text: string): Json | undefined {
  let from = 0;
  for (;;) {
    const open = text.indexOf(FENCE, from);
    if (open < 0) return undefined;
    const eol = text.indexOf('\n', open + FENCE.length);
    if (eol < 0) return undefined;
    // The info string's first word is the language ("json title=x" is json).
    const label = text.slice(open + FENCE.length, eol).trim().split(/\s+/, 1)[0]!.toLowerCase();
    const close = text.indexOf(FENCE, eol + 1);
    if (close < 0) return undefined;
    from = close + FENCE.length;
    if (label !== '' && label !== 'json' && label !== 'jsonc') continue;
    const parsed = parseJsonExact(text.slice(eol + 1, close));
    if (parsed.ok) return parsed.value;
  }
}
