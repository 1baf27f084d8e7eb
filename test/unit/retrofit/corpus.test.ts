/** Every case under test/fixtures/corpus/ through the pure engine (see the README there). */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Json, JsonObject } from '../../../src/json.js';
import type { ToolConfig } from '../../../src/config/types.js';
import { rewriteToolCall, rewriteToolsList } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

interface Case {
  readonly description: string;
  readonly tool: string;
  readonly revision: string;
  readonly config: ToolConfig;
  readonly input: JsonObject;
  readonly expect: {
    readonly outcome: string;
    readonly format?: string;
    readonly structuredContent?: Json;
    readonly isError?: boolean;
    readonly content?: Json[];
    readonly reasonsContain?: string[];
  };
}

const DIR = join(import.meta.dirname, '../../fixtures/corpus');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();
const cases = files.map((file) => ({ file, ...(parse(readFileSync(join(DIR, file), 'utf8')) as Case) }));

describe('corpus', () => {
  it('holds at least 40 cases, near-misses included', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(cases.filter((c) => c.description.startsWith('near-miss')).length).toBeGreaterThanOrEqual(8);
  });

  it.each(cases)('$file: $description', (c) => {
    const policy = upstreamWith({ [c.tool]: c.config });
    const { result, outcome } = rewriteToolCall(c.input, c.tool, policy, c.revision);
    expect(outcome.tool).toBe(c.tool);
    expect(outcome.outcome).toBe(c.expect.outcome);
    if (c.expect.format !== undefined) expect(outcome.format).toBe(c.expect.format);
    if ('structuredContent' in c.expect) {
      if (c.expect.structuredContent === null) expect(result).not.toHaveProperty('structuredContent');
      else expect(result.structuredContent).toEqual(c.expect.structuredContent);
    }
    if (c.expect.isError !== undefined) expect(result.isError).toBe(c.expect.isError);
    else expect(result.isError).toBeUndefined();
    if (c.expect.content !== undefined) expect(result.content).toEqual(c.expect.content);
    for (const fragment of c.expect.reasonsContain ?? []) {
      expect(outcome.reasons?.join('\n')).toContain(fragment);
      expect(JSON.stringify(result.content)).toContain(JSON.stringify(fragment).slice(1, -1));
    }
    // Whatever happened, a result with structuredContent has a text block, and the original blocks are kept.
    if (result.structuredContent !== undefined) {
      expect((result.content as JsonObject[]).some((b) => b.type === 'text')).toBe(true);
    }
    const original = (c.input.content ?? []) as Json[];
    expect((result.content as Json[] | undefined)?.slice(0, original.length) ?? []).toEqual(original);

    // The schema tools/list announces matches what the call produced.
    const list = rewriteToolsList({ tools: [{ name: c.tool, inputSchema: { type: 'object' } }] }, policy, c.revision);
    const announced = (list.result.tools as JsonObject[])[0]!.outputSchema;
    if (result.structuredContent !== undefined && !result.isError) expect(announced).toBeDefined();
  });
});
