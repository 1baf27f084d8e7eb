/**
 * A failing sample's text with each failing pointer's value marked (<mark data-pointer>), and the reasons
 * listed below it, each saying whether its place in the text was found.
 */
import { useMemo } from 'preact/hooks';
import { locator, type Span } from '../locate.js';
import type { Reason } from '../types.js';

interface Located {
  readonly reason: Reason;
  readonly span: Span | null;
}

interface Piece {
  readonly text: string;
  /** The innermost pointer covering this piece, and every one that does. */
  readonly pointer: string | null;
  readonly all: readonly (string | null)[];
}

/** Cuts the text at every span's edges; each piece knows the spans covering it. */
function pieces(text: string, located: readonly Located[]): Piece[] {
  const spans = located.filter((l): l is Located & { span: Span } => l.span !== null);
  const cuts = [...new Set([0, text.length, ...spans.flatMap((l) => [l.span.start, l.span.end])])].sort((a, b) => a - b);
  const out: Piece[] = [];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const start = cuts[k] ?? 0;
    const end = cuts[k + 1] ?? text.length;
    const covering = spans.filter((l) => l.span.start <= start && l.span.end >= end).sort((a, b) => a.span.end - a.span.start - (b.span.end - b.span.start));
    out.push({ text: text.slice(start, end), pointer: covering[0]?.reason.pointer ?? null, all: [...new Set(covering.map((l) => l.reason.pointer))] });
  }
  return out;
}

const shown = (pointer: string | null): string => (pointer === null ? '' : pointer === '' ? '(root)' : pointer);

export function HighlightedText({ text, reasons, label }: { text: string; reasons: readonly Reason[]; label: string }) {
  const located = useMemo(() => {
    const locate = locator(text);
    return reasons.map((reason) => ({ reason, span: reason.pointer === null ? null : locate(reason.pointer) }));
  }, [text, reasons]);
  return (
    <>
      <pre class="code sample" tabIndex={0} aria-label={label}>
        {pieces(text, located).map((p, k) =>
          p.pointer === null ? (
            p.text
          ) : (
            <mark key={k} data-pointer={p.pointer} title={p.all.map(shown).join(', ')}>
              {p.text}
            </mark>
          ),
        )}
      </pre>
      <ul class="reasons">
        {located.map(({ reason, span }, k) => (
          <li key={k}>
            {reason.pointer !== null && (
              <>
                <code class="pointer">{shown(reason.pointer)}</code>{' '}
              </>
            )}
            {reason.message}
            {span === null && reason.pointer !== null && reason.pointer !== '' && <span class="muted"> (not located in the text)</span>}
          </li>
        ))}
      </ul>
    </>
  );
}
