/** The Learn page's unified diff. */
import { describe, expect, it } from 'vitest';
import { lineDiff, MAX_EDITS } from '../../../src/console/diff.js';

const names = { from: 'running', to: 'proposed' };

describe('lineDiff', () => {
  it('marks kept, removed and added lines, the whole entry as context', () => {
    expect(lineDiff('a\nb\nc\n', 'a\nc\nd\n', names)).toBe('--- running\n+++ proposed\n@@ -1,3 +1,3 @@\n a\n-b\n c\n+d\n');
  });

  it('from nothing, everything is added', () => {
    expect(lineDiff('', 'x:\n  y: 1\n', names)).toBe('--- running\n+++ proposed\n@@ -0,0 +1,2 @@\n+x:\n+  y: 1\n');
  });

  it('the head alone when nothing changed', () => {
    expect(lineDiff('x: 1\n', 'x: 1\n', names)).toBe('--- running\n+++ proposed\n');
  });

  it('past MAX_EDITS, everything old is removed and everything new added', () => {
    const a = Array.from({ length: MAX_EDITS + 10 }, (_, i) => `a${i}`).join('\n') + '\n';
    const b = Array.from({ length: MAX_EDITS + 10 }, (_, i) => `b${i}`).join('\n') + '\n';
    const diff = lineDiff(a, b, names).split('\n');
    expect(diff.slice(0, 4)).toEqual(['--- running', '+++ proposed', `@@ -1,${MAX_EDITS + 10} +1,${MAX_EDITS + 10} @@`, '-a0']);
    expect(diff.filter((l) => l.startsWith('-') && !l.startsWith('---'))).toHaveLength(MAX_EDITS + 10);
    expect(diff.filter((l) => l.startsWith('+') && !l.startsWith('+++'))).toHaveLength(MAX_EDITS + 10);
  });
});
