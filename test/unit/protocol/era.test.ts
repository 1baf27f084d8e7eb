import { describe, expect, it } from 'vitest';
import {
  acceptsHeaderRevision,
  detectRevision,
  eraOf,
  isKnownRevision,
  isRevision,
  isResumable,
  isStateless,
  REVISIONS,
  STATEFUL_REVISIONS,
  takesPrimingEvent,
} from '../../../src/protocol/era.js';

/** What each known revision is, one row each (a new revision needs a row). */
const TABLE = [
  { revision: '2024-11-05', era: 'none', stateless: false, resumable: false, priming: false, header: true },
  { revision: '2025-03-26', era: 'none', stateless: false, resumable: true, priming: false, header: true },
  { revision: '2025-06-18', era: 'object-only', stateless: false, resumable: true, priming: false, header: true },
  { revision: '2025-11-25', era: 'object-only', stateless: false, resumable: true, priming: true, header: true },
  { revision: '2026-07-28', era: 'modern', stateless: true, resumable: false, priming: false, header: false },
] as const;

describe('revision properties', () => {
  it('has a row for every known revision', () => {
    expect(TABLE.map((r) => r.revision)).toEqual([...REVISIONS]);
  });

  it.each(TABLE)('$revision', ({ revision, era, stateless, resumable, priming, header }) => {
    expect(isKnownRevision(revision)).toBe(true);
    expect(eraOf(revision)).toBe(era);
    expect(isStateless(revision)).toBe(stateless);
    expect(isResumable(revision)).toBe(resumable);
    expect(takesPrimingEvent(revision)).toBe(priming);
    expect(acceptsHeaderRevision(revision)).toBe(header);
  });

  it('treats an unknown future revision like the newest era, and an unknown one as not known', () => {
    expect(isKnownRevision('2027-01-01')).toBe(false);
    expect(isStateless('2027-01-01')).toBe(true);
    expect(isResumable('2027-01-01')).toBe(false);
    expect(takesPrimingEvent('2027-01-01')).toBe(false);
    expect(acceptsHeaderRevision('2027-01-01')).toBe(false);
  });

  it('isKnownRevision takes only the exact strings', () => {
    for (const value of [undefined, null, 20250618, '2025-06-18 ', '2025-06-19', ['2025-06-18']]) expect(isKnownRevision(value)).toBe(false);
  });
});

describe('isRevision', () => {
  it('takes any dddd-dd-dd string and nothing else', () => {
    for (const yes of ['2025-06-18', '2024-10-07', '0000-00-00', '2099-12-31']) expect(isRevision(yes)).toBe(true);
    for (const no of ['2025-6-18', '2025-06-18 ', ' 2025-06-18', '2025/06/18', '2025-06-1x', 'x025-06-18', '20250-6-18', '2025-06-18T00', '', '１０２５-06-18', 20250618, null, undefined, ['2025-06-18']]) {
      expect(isRevision(no)).toBe(false);
    }
  });
});

describe('STATEFUL_REVISIONS and acceptsHeaderRevision', () => {
  it('lists the session-based revisions, newest first', () => {
    expect(STATEFUL_REVISIONS).toEqual(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  });

  it('also accepts the 2024-10-07 draft the SDK servers accept, and nothing else', () => {
    expect(acceptsHeaderRevision('2024-10-07')).toBe(true);
    for (const value of ['', '2025-11-25 ', '2025-11-26', 'latest', '2024-10-06']) expect(acceptsHeaderRevision(value)).toBe(false);
  });
});

describe('detectRevision', () => {
  it('takes _meta, then the header, then the session, else 2025-03-26, skipping what is not a revision', () => {
    expect(detectRevision({ meta: '2026-07-28', header: '2025-06-18', session: '2025-11-25' })).toEqual({ revision: '2026-07-28', source: 'meta' });
    expect(detectRevision({ meta: 7, header: '2025-06-18', session: '2025-11-25' })).toEqual({ revision: '2025-06-18', source: 'header' });
    expect(detectRevision({ header: 'x', session: '2025-11-25' })).toEqual({ revision: '2025-11-25', source: 'session' });
    expect(detectRevision({})).toEqual({ revision: '2025-03-26', source: 'default' });
  });
});
