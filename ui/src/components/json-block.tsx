/** A JSON value shown as indented text, in a labelled, scrollable, keyboard-focusable block. */
import type { Json } from '../types.js';

export function JsonBlock({ value, label }: { value: Json | undefined; label: string }) {
  return (
    <pre class="code" tabIndex={0} aria-label={label}>
      {value === undefined ? '—' : JSON.stringify(value, null, 2)}
    </pre>
  );
}
