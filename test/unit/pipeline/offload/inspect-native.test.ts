/**
 * The worker's miniature of a result (src/pipeline/offload/inspect.ts) stands in for the whole result when the
 * session decides whether a large answer of a tool without a configured schema must be read
 * (src/pipeline/rewrite.ts leavesUnread): the engine run on the miniature must change it exactly when it
 * changes the whole result. Checked over results × revisions × what tools/list taught × legacyRoots × profiles.
 */
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../../src/json.js';
import { stubOf } from '../../../../src/pipeline/offload/inspect.js';
import { compileUpstreamPolicy } from '../../../../src/policy/compile.js';
import { rewriteToolCall } from '../../../../src/retrofit/engine.js';
import { decisionKey, type NativeDecision } from '../../../../src/retrofit/native-memory.js';
import type { ProfileShape } from '../../../../src/retrofit/profile.js';
import type { Era } from '../../../../src/protocol/era.js';

const TEXT = { type: 'text', text: '{"a":1}' };
const IMAGE = { type: 'image', data: 'AAAA', mimeType: 'image/png' };

const RESULTS: Record<string, JsonObject> = {
  'object with text': { content: [TEXT], structuredContent: { a: 1 } },
  'object without text': { content: [IMAGE], structuredContent: { a: 1 } },
  'object, no content': { structuredContent: { a: 1 } },
  'array with text': { content: [TEXT], structuredContent: [1, 2] },
  'string with text': { content: [TEXT], structuredContent: 'long text' },
  'number without text': { content: [], structuredContent: 3 },
  'null with text': { content: [TEXT], structuredContent: null },
  'wrapped value with text': { content: [TEXT], structuredContent: { result: [1] } },
  'wrapped value and more': { content: [TEXT], structuredContent: { result: [1], more: true } },
  'error with object': { content: [TEXT], structuredContent: { a: 1 }, isError: true },
  'error with array, no text': { content: [IMAGE], structuredContent: [1] },
  'task, no content': { task: { taskId: 't1', status: 'working' }, structuredContent: { a: 1 } },
  'task with content': { task: { taskId: 't1' }, content: [TEXT], structuredContent: [1] },
  'input required': { resultType: 'input_required', content: [IMAGE], structuredContent: [1] },
  'complete': { resultType: 'complete', content: [IMAGE], structuredContent: [1] },
  'content not an array': { content: { type: 'text' }, structuredContent: [1] },
};
const REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];
const LEARNT: (NativeDecision | undefined)[] = [undefined, 'object', 'non-object', 'removed'];
const ERAS: Era[] = ['modern', 'object-only', 'none'];
const PROFILES: (ProfileShape | undefined)[] = [
  undefined,
  { outputSchema: 'keep', schemaDialect: 'keep', textFallback: false, inputSchemaRoot: 'keep' },
  { outputSchema: 'strip', schemaDialect: 'keep', textFallback: false, inputSchemaRoot: 'keep' },
];
/** textFallback compares the text blocks with the value, which the miniature does not hold: it may only err towards reading. */
const TEXT_FALLBACK: ProfileShape = { outputSchema: 'keep', schemaDialect: 'keep', textFallback: true, inputSchemaRoot: 'keep' };


describe('the miniature of a result with structuredContent', () => {
  it('changes under the native projection exactly when the whole result does', () => {
    let cases = 0;
    let changed = 0;
    for (const legacyRoots of ['wrap', 'drop'] as const) {
      for (const learnt of LEARNT) {
        for (const era of [...ERAS, undefined]) {
          const { policy } = compileUpstreamPolicy({ name: 'u', tools: {} }, { onInvalid: 'error', legacyRoots, coerce: true });
          // What one era's tools/list taught (or none at all), as src/retrofit/inject.ts records it.
          if (learnt !== undefined && era !== undefined) policy.native!.decisions.set(decisionKey('t', era), learnt);
          for (const [name, result] of Object.entries(RESULTS)) {
            const mini = stubOf({ jsonrpc: '2.0', id: 1, result }).result as JsonObject;
            for (const revision of REVISIONS) {
              for (const profile of PROFILES) {
                const whole = rewriteToolCall(result, 't', policy, revision, profile).result !== result;
                const small = rewriteToolCall(mini, 't', policy, revision, profile).result !== mini;
                expect({ name, revision, learnt, era, legacyRoots, profile: profile?.outputSchema, changed: small }).toEqual({ name, revision, learnt, era, legacyRoots, profile: profile?.outputSchema, changed: whole });
                cases += 1;
                if (whole) changed += 1;
              }
              if (rewriteToolCall(mini, 't', policy, revision, TEXT_FALLBACK).result === mini) expect(rewriteToolCall(result, 't', policy, revision, TEXT_FALLBACK).result).toBe(result);
            }
          }
        }
      }
    }
    // Both verdicts occur (the check is not vacuous).
    expect(cases).toBeGreaterThan(1000);
    expect(changed).toBeGreaterThan(100);
    expect(cases - changed).toBeGreaterThan(100);
  });

  it("keeps a task's id, and no text of the bulk", () => {
    const big = 'x'.repeat(10_000);
    expect(stubOf({ jsonrpc: '2.0', id: 1, result: { task: { taskId: 't9', status: big }, content: [{ type: 'text', text: big }], structuredContent: big } })).toEqual({ jsonrpc: '2.0', id: 1, result: { task: { taskId: 't9' }, content: [{ type: 'text' }], structuredContent: '' } });
  });
});
