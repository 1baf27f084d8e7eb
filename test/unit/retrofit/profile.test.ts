/** The shapes of client profiles (issue 26): pure functions over tools/list and tools/call results. */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { KEEP_SHAPE, objectRoot, shapeToolResult, shapeToolsList, type ProfileShape } from '../../../src/retrofit/profile.js';
import { createProfileMatcher, matchProblems } from '../../../src/policy/clients.js';

const shape = (s: Partial<ProfileShape>): ProfileShape => ({ ...KEEP_SHAPE, ...s });

describe('shapeToolsList', () => {
  const list: JsonObject = { tools: [{ name: 'a', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }, { name: 'b', inputSchema: { type: 'object' } }] };
  it('changes nothing (the same object) for a neutral shape or one that finds nothing to do', () => {
    expect(shapeToolsList(list, KEEP_SHAPE)).toBe(list);
    expect(shapeToolsList(list, shape({ schemaDialect: '2020-12', inputSchemaRoot: 'object' }))).toBe(list);
  });
  it('strips outputSchema', () => {
    expect(shapeToolsList(list, shape({ outputSchema: 'strip' }))).toEqual({ tools: [{ name: 'a', inputSchema: { type: 'object' } }, { name: 'b', inputSchema: { type: 'object' } }] });
    expect((list.tools as JsonObject[])[0]!.outputSchema).toEqual({ type: 'object' });
  });
});

describe('objectRoot', () => {
  it('merges anyOf branches: every property, required only where every branch requires it', () => {
    expect(objectRoot({ anyOf: [{ type: 'object', properties: { q: { type: 'string' }, n: { type: 'integer' } }, required: ['q', 'n'] }, { properties: { id: { type: 'integer' }, n: { type: 'number' } }, required: ['id', 'n'] }] })).toEqual({
      type: 'object',
      properties: { q: { type: 'string' }, n: { anyOf: [{ type: 'integer' }, { type: 'number' }] }, id: { type: 'integer' } },
      required: ['n'],
    });
  });
  it('allOf parts add their required; the root keeps its other keywords; a typeless root gets type object', () => {
    expect(objectRoot({ description: 'd', allOf: [{ properties: { a: {} }, required: ['a'] }, { properties: { b: {} }, required: ['b'] }] })).toEqual({ description: 'd', type: 'object', properties: { a: {}, b: {} }, required: ['a', 'b'] });
    expect(objectRoot({ properties: { a: {} } })).toEqual({ type: 'object', properties: { a: {} } });
  });
});

describe('shapeToolResult', () => {
  const sc = { a: 1 };
  it('strip: drops structuredContent, keeps the text, and gives a text-less result its JSON', () => {
    expect(shapeToolResult({ content: [{ type: 'text', text: 'one' }], structuredContent: sc }, shape({ outputSchema: 'strip' }))).toEqual({ content: [{ type: 'text', text: 'one' }] });
    expect(shapeToolResult({ content: [], structuredContent: sc }, shape({ outputSchema: 'strip' }))).toEqual({ content: [{ type: 'text', text: '{"a":1}' }] });
  });
  it('textFallback: adds the JSON unless a text block already holds it (even formatted differently)', () => {
    expect(shapeToolResult({ content: [{ type: 'text', text: 'one' }], structuredContent: sc }, shape({ textFallback: true })).content).toEqual([{ type: 'text', text: 'one' }, { type: 'text', text: '{"a":1}' }]);
    const formatted = { content: [{ type: 'text', text: '{\n  "a": 1\n}' }], structuredContent: sc };
    expect(shapeToolResult(formatted, shape({ textFallback: true }))).toEqual(formatted);
  });
  it('leaves results without structuredContent alone', () => {
    const r = { content: [{ type: 'text', text: 'x' }] };
    expect(shapeToolResult(r, shape({ outputSchema: 'strip', textFallback: true }))).toBe(r);
  });
});

describe('profile matching', () => {
  const profile = (name: string, match: object, s: Partial<ProfileShape> = { outputSchema: 'strip' }) => ({ name, match, ...shape(s) });
  const matcher = createProfileMatcher([
    profile('old-claude', { name: 'claude-*', version: '<1.2' }),
    profile('neutral', { name: 'keep-*' }, {}),
    profile('modern', { revision: ['2026-07-28'] }, { textFallback: true }),
  ])!;
  it('first match wins; a version that is not semver matches no range; a neutral profile is no profile', () => {
    expect(matcher.match({ name: 'claude-code', version: '1.1.9', revision: '2025-06-18' })?.name).toBe('old-claude');
    expect(matcher.match({ name: 'claude-code', version: '1.2.0', revision: '2025-06-18' })).toBeUndefined();
    expect(matcher.match({ name: 'claude-code', version: 'dev', revision: '2025-06-18' })).toBeUndefined();
    expect(matcher.match({ name: 'keep-me', revision: '2026-07-28' })).toBeUndefined();
    expect(matcher.match({ name: 'anything', revision: '2026-07-28' })?.name).toBe('modern');
    expect(matcher.match({ revision: '2026-07-28' })?.name).toBe('modern');
  });
  it('reports bad globs, ranges and revisions', () => {
    expect(matchProblems({ name: 'a[', version: 'x y z', revision: ['2025-11-25', '2030-01-01'] }).map(([k]) => k)).toEqual(['name', 'revision.1', 'version']);
  });
});
