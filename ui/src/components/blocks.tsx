/**
 * The small blocks the pages show values with: a JSON value, a unified diff, a time, a copy button. Each
 * block that scrolls is keyboard-focusable and labelled.
 */
import { useState } from 'preact/hooks';
import { ago, time } from '../format.js';
import type { Json } from '../types.js';

/** A JSON value shown as indented text. */
export function JsonBlock({ value, label }: { value: Json | undefined; label: string }) {
  return (
    <pre class="code" tabIndex={0} aria-label={label}>
      {value === undefined ? '—' : JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** A <time> element: relative text, the absolute time as its title and datetime. */
export function When({ at }: { at: number }) {
  return (
    <time dateTime={new Date(at).toISOString()} title={time(at)}>
      {ago(at)}
    </time>
  );
}

function lineClass(line: string): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('@@')) return 'diff-head';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  return undefined;
}

/** A unified diff with added and removed lines marked (by colour and by their +/− sign). */
export function DiffBlock({ diff, label }: { diff: string; label: string }) {
  // A unified diff without a hunk changes nothing (the head alone).
  if (!diff.includes('\n@@')) return <p class="muted">No difference from the running config.</p>;
  const lines = diff.replace(/\n$/, '').split('\n');
  return (
    <pre class="code diff" tabIndex={0} aria-label={label}>
      {lines.map((line, k) => (
        <span key={k} class={lineClass(line)}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

/** Copies a text to the clipboard and says so (in a live region, for screen readers too). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [said, setSaid] = useState('');
  const copy = (): void => {
    navigator.clipboard.writeText(text).then(
      () => setSaid('Copied.'),
      () => setSaid('The browser refused; select the text and copy it.'),
    );
  };
  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {label}
      </button>
      <span role="status" class="muted">
        {said}
      </span>
    </span>
  );
}
