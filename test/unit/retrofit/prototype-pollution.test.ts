/**
 * Regression pin: untrusted tool output must never reach Object.prototype, nor leave `__proto__` /
 * `constructor.prototype` keys in structuredContent, whichever extractor reads it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import type { ToolConfig } from '../../../src/config/types.js';
import { rewriteToolCall } from '../../../src/retrofit/engine.js';
import { upstreamWith } from './helpers.js';

const SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };
const PAYLOAD = '{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "name": "x"}';
const PY = "{'__proto__': {'polluted': 'yes'}, 'name': 'x',}";

const CASES: [string, ToolConfig, string[]][] = [
  ['json', { outputSchema: SCHEMA }, [PAYLOAD]],
  ['fenced', { outputSchema: SCHEMA }, ['```json\n' + PAYLOAD + '\n```']],
  ['embedded', { outputSchema: SCHEMA }, ['Result: ' + PAYLOAD + ' done']],
  ['relaxed', { outputSchema: SCHEMA }, [PY]],
  ['blocks', { outputSchema: { type: 'array', items: SCHEMA } }, [PAYLOAD, PAYLOAD]],
  ['yaml', { outputSchema: SCHEMA, extract: { format: 'yaml' } }, ['__proto__:\n  polluted: yes\nconstructor:\n  prototype:\n    polluted: yes\nname: x']],
  ['regex', { outputSchema: SCHEMA, extract: { format: 'regex', pattern: '(?<__proto__>\\w+) (?<name>\\w+)' } }, ['polluted x']],
];

function hasForbiddenKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (Object.getPrototypeOf(value) !== Object.prototype && !Array.isArray(value)) return true;
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || key === 'prototype') return true;
    if (hasForbiddenKey((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

describe('prototype pollution', () => {
  afterEach(() => {
    delete (Object.prototype as Record<string, unknown>).polluted;
  });

  it.each(CASES)('%s', (_name, config, texts) => {
    const policy = upstreamWith({ t: config });
    const { result, outcome } = rewriteToolCall({ content: texts.map((text) => ({ type: 'text', text })) }, 't', policy, '2026-07-28');
    expect(outcome.outcome).toBe('extracted');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(hasForbiddenKey(result.structuredContent)).toBe(false);
    const values = Array.isArray(result.structuredContent) ? result.structuredContent : [result.structuredContent];
    for (const v of values) expect((v as JsonObject).name).toBe('x');
  });
});
