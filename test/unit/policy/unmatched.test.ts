/** Which `tools:` keys govern no listed tool, judged once on the first complete listing (all its pages). */
import { describe, expect, it } from 'vitest';
import type { ToolConfig } from '../../../src/config/types.js';
import { unmatchedKeyWarning as warningText } from '../../../src/config/warnings.js';
import { FirstListing, unmatchedKeys } from '../../../src/policy/unmatched.js';
import { upstreamWith } from '../retrofit/helpers.js';

const schema: ToolConfig = { outputSchema: { type: 'object' } };
const policy = upstreamWith({ get_weather: schema, 'list_*': schema, get_wether: schema });
const page = (names: string[], nextCursor?: string) => ({ tools: names.map((name) => ({ name, inputSchema: { type: 'object' } })), ...(nextCursor !== undefined && { nextCursor }) });

describe('unmatchedKeys', () => {
  it('names the keys that govern no listed tool, in file order, in the probe wording', () => {
    const warnings = unmatchedKeys(policy.keys ?? [], ['get_weather', 'read'], policy);
    expect(warnings.map((w) => warningText('u', w))).toEqual([
      'upstreams.u.tools: key "list_*" matches no tool listed by "u"',
      'upstreams.u.tools: key "get_wether" matches no tool listed by "u" (did you mean "get_weather"?)',
    ]);
  });

  it('compileUpstreamPolicy records the keys in file order', () => {
    expect(policy.keys).toEqual(['get_weather', 'list_*', 'get_wether']);
  });
});

describe('FirstListing', () => {
  it('judges a single page at once, and never again', () => {
    const listing = new FirstListing();
    expect(listing.observe(page(['get_weather', 'list_cities']), policy).map((w) => w.key)).toEqual(['get_wether']);
    expect(listing.done).toBe(true);
    expect(listing.observe(page([]), policy)).toEqual([]);
  });

  it('gathers paginated pages until one without nextCursor, then judges them together', () => {
    const listing = new FirstListing();
    expect(listing.observe(page(['get_weather'], 'p2'), policy)).toEqual([]);
    expect(listing.done).toBe(false);
    expect(listing.observe(page(['list_cities'], ''), policy).map((w) => w.key)).toEqual(['get_wether']);
  });

  it('ignores what is not a tools list and entries without a name', () => {
    const listing = new FirstListing();
    expect(listing.observe({ items: [] }, policy)).toEqual([]);
    expect(listing.done).toBe(false);
    expect(listing.observe({ tools: [42, { name: 7 }, { name: 'get_wether' }] }, policy).map((w) => w.key)).toEqual(['get_weather', 'list_*']);
  });
});
