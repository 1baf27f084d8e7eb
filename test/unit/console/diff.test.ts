/** The Learn page's line diff. */
import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../../src/console/diff.js';

describe('lineDiff', () => {
  it('marks kept, removed and added lines', () => {
    const diff = lineDiff('a\nb\nc\n', 'a\nc\nd\n', { from: 'running', to: 'proposed' });
    expect(diff).toBe('--- running\n+++ proposed\n a\n-b\n c\n+d\n');
  });

  it('from nothing, everything is added', () => {
    expect(lineDiff('', 'x:\n  y: 1\n', { from: 'running', to: 'proposed' })).toBe('--- running\n+++ proposed\n+x:\n+  y: 1\n');
  });
});
