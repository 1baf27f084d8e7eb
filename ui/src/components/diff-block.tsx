/** A unified diff with added and removed lines marked (by colour and by their +/− sign). */

function lineClass(line: string): string | undefined {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('@@')) return 'diff-head';
  if (line.startsWith('+')) return 'diff-add';
  if (line.startsWith('-')) return 'diff-del';
  return undefined;
}

export function DiffBlock({ diff, label }: { diff: string; label: string }) {
  if (diff.trim() === '') return <p class="muted">No difference from the running config.</p>;
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
