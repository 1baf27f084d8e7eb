/**
 * Regression: every distinct outputSchema an upstream declared was compiled on the event loop and kept by
 * ajv forever — a server listing thousands of new schemas per tools/list stalled every session for seconds
 * and grew the heap without bound. Each list now has a compile budget (repair.ts COMPILES_PER_LIST); a schema
 * not checked within it is not served (strict clients reject a whole list over one bad schema) and is checked
 * on a later list; only verdicts are remembered.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { injectToolsList } from '../../../src/retrofit/inject.js';
import { createNativeMemory } from '../../../src/retrofit/native-memory.js';
import { COMPILE_BYTES_PER_LIST, COMPILES_PER_LIST, compileBudget, MAX_DECLARED_SCHEMA_BYTES, outputSchemaProblem } from '../../../src/retrofit/repair.js';

const SPENT = { left: 0, bytes: 0 };

describe('compiling the schemas an upstream declares', () => {
  it('a schema not yet checked when the list`s budget is spent is not served, and is served once checked', () => {
    const salt = Math.random().toString(36);
    const tool: JsonObject = { name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object', description: salt } };
    const ctx = { compiledFor: () => undefined, memory: createNativeMemory(), legacyRoots: 'wrap' as const, revision: '2025-11-25' };
    const spent = injectToolsList({ tools: [tool] }, { ...ctx, budget: SPENT });
    expect((spent.result.tools as JsonObject[])[0]).not.toHaveProperty('outputSchema');
    expect(spent.repairs).toMatchObject([{ tool: 't', kind: 'output_removed', detail: expect.stringContaining(`more than ${COMPILES_PER_LIST} schemas new`) }]);
    // The next list has its own budget: the schema is checked and served, and from then on remembered.
    expect((injectToolsList({ tools: [tool] }, ctx).result.tools as JsonObject[])[0]).toHaveProperty('outputSchema');
    expect((injectToolsList({ tools: [tool] }, { ...ctx, budget: SPENT }).result.tools as JsonObject[])[0]).toHaveProperty('outputSchema');
  });

  it('remembers a verdict, not a validator: the same schema text is compiled once', () => {
    const schema = { type: 'object', properties: { a: { type: 'strng' } }, description: Math.random().toString(36) };
    expect(outputSchemaProblem(schema, compileBudget())).toMatch(/must be equal to one of the allowed values|schema is invalid/);
    // A spent budget does not matter for a schema already judged.
    expect(outputSchemaProblem({ ...schema }, SPENT)).toBe(outputSchemaProblem(schema));
  });

  it('a list compiles at most COMPILES_PER_LIST new schemas; the rest wait for the next list', () => {
    const salt = Math.random().toString(36);
    const tools = Array.from({ length: COMPILES_PER_LIST + 3 }, (_, i): JsonObject => ({ name: `t${i}`, inputSchema: { type: 'object' }, outputSchema: { type: 'object', description: `${salt}${i}` } }));
    const ctx = { compiledFor: () => undefined, memory: createNativeMemory(), legacyRoots: 'wrap' as const, revision: '2026-07-28' };
    const served = (): number => (injectToolsList({ tools }, ctx).result.tools as JsonObject[]).filter((t) => 'outputSchema' in t).length;
    expect(served()).toBe(COMPILES_PER_LIST);
    expect(served()).toBe(COMPILES_PER_LIST + 3);
  });

  it('a schema larger than MAX_DECLARED_SCHEMA_BYTES is never compiled nor served; a list compiles at most COMPILE_BYTES_PER_LIST', () => {
    // The shape that took ajv 18 s at 4,000 properties: a pattern and a format on each.
    const heavy = (n: number, salt: string): JsonObject => ({ type: 'object', description: salt, properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string', pattern: `^(a|b)*c${i}$`, format: 'email', minLength: 1 }])) });
    const salt = Math.random().toString(36);
    const huge = heavy(4000, salt);
    expect(JSON.stringify(huge).length).toBeGreaterThan(MAX_DECLARED_SCHEMA_BYTES);
    expect(outputSchemaProblem(huge, compileBudget())).toMatch(/more than the 32768 the gateway compiles/);
    expect(outputSchemaProblem(huge)).toMatch(/more than the 32768 the gateway compiles/);
    // Four of ~30 KB each: the list's bytes run out after three; the fourth waits for the next list.
    const tools = [0, 1, 2, 3].map((i): JsonObject => ({ name: `h${i}`, inputSchema: { type: 'object' }, outputSchema: heavy(380, `${salt}${i}`) }));
    const size = JSON.stringify(tools[0]!.outputSchema).length;
    expect(size).toBeLessThan(MAX_DECLARED_SCHEMA_BYTES);
    expect(size * 3).toBeLessThan(COMPILE_BYTES_PER_LIST);
    expect(size * 4).toBeGreaterThan(COMPILE_BYTES_PER_LIST);
    const ctx = { compiledFor: () => undefined, memory: createNativeMemory(), legacyRoots: 'wrap' as const, revision: '2026-07-28' };
    const first = injectToolsList({ tools }, ctx);
    expect((first.result.tools as JsonObject[]).filter((t) => 'outputSchema' in t)).toHaveLength(3);
    expect(first.repairs).toMatchObject([{ tool: 'h3', kind: 'output_removed', detail: expect.stringContaining(`more than ${COMPILE_BYTES_PER_LIST} characters`) }]);
    expect((injectToolsList({ tools }, ctx).result.tools as JsonObject[]).filter((t) => 'outputSchema' in t)).toHaveLength(4);
  });
});
