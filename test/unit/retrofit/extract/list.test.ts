import fc from '../../../helpers/fast-check.js';
import { describe, expect, it } from 'vitest';
import { extractLists } from '../../../../src/retrofit/extract/list.js';

const all = (text: string) => [...extractLists(text)];

describe('list', () => {
  it('bulleted and numbered lists; continuation lines joined with a space', () => {
    expect(all('Top repos:\n\n1. **react** (★ 2341)\n   A UI library\n2. **vue** (★ 999)\n\nBye')).toEqual([['**react** (★ 2341) A UI library', '**vue** (★ 999)']]);
    expect(all('- a\n- b\n* c')).toEqual([['a', 'b'], ['c']]);
  });
  it('loose lists, nested items as continuation, prose after a list ends it', () => {
    expect(all('- a\n\n- b\n  - b1\nprose')).toEqual([['a', 'b - b1']]);
  });
  it('thematic breaks and fenced code are not items', () => {
    expect(all('* * *\n```\n- no\n```\n- yes')).toEqual([['yes']]);
  });
  it('keeps item text as written', () => {
    expect(all('- 02134\n- 1.10\n-  leading')).toEqual([['02134', '1.10', 'leading']]);
  });
  it('is linear on 10 MB', () => {
    expect(all('- x\n'.repeat(2_500_000))[0]!.length).toBe(2_500_000);
    // One 10 MB line of `- - - …` is a thematic break (and once overflowed the stack of a backreference regex).
    expect(all('- '.repeat(5 * 1024 * 1024))).toEqual([]);
    expect(all(`- ${'a '.repeat(5 * 1024 * 1024)}`)).toHaveLength(1);
  });

  const itemText = fc.string({ unit: fc.constantFrom('a', 'b', '1', ' ', '*', '(', ')', '★', '.', ':'), minLength: 1, maxLength: 12 })
    .map((s) => s.replace(/\s+/g, ' ').trim())
    // Not an item marker itself, and no first word of - * _ only: `* **` is a thematic break, not an item.
    .filter((s) => s !== '' && !/^([-*+]|\d+[.)])( |$)/.test(s) && !/^[-*_]+( |$)/.test(s));
  it('returns random items exactly, bulleted or numbered, wrapped or not', () => {
    fc.assert(
      fc.property(fc.array(itemText, { minLength: 1, maxLength: 10 }), fc.constantFrom('-', '*', '+', '1.', '1)'), fc.boolean(), (items, marker, wrap) => {
        const lines = items.flatMap((item, i) => {
          const m = marker.endsWith('.') || marker.endsWith(')') ? `${i + 1}${marker.slice(-1)}` : marker;
          const words = item.split(' ');
          if (!wrap || words.length < 2) return [`${m} ${item}`];
          const pad = ' '.repeat(m.length + 1);
          return [`${m} ${words[0]}`, `${pad}${words.slice(1).join(' ')}`];
        });
        expect(all(['Items:', '', ...lines, '', 'end'].join('\n'))).toEqual([items]);
      }),
      { numRuns: 300 },
    );
  });
});
