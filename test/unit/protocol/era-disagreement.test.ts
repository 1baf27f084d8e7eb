import { describe, expect, it } from 'vitest';
import { revisionsDisagree } from '../../../src/protocol/era.js';

describe('revisionsDisagree', () => {
  it('is true only when _meta and the header both name a revision and differ', () => {
    expect(revisionsDisagree({ meta: '2026-07-28', header: '2025-11-25' })).toBe(true);
    expect(revisionsDisagree({ meta: '2025-06-18', header: '2026-07-28' })).toBe(true);
    expect(revisionsDisagree({ meta: '2026-07-28', header: '2026-07-28' })).toBe(false);
    expect(revisionsDisagree({ meta: '2026-07-28', header: undefined })).toBe(false);
    expect(revisionsDisagree({ meta: undefined, header: '2025-11-25' })).toBe(false);
    // Not a revision at all: detection ignores it, so there is nothing to disagree with.
    expect(revisionsDisagree({ meta: 42, header: '2025-11-25' })).toBe(false);
  });
});
