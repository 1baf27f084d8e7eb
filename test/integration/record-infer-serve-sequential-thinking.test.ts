/**
 * Record → infer → serve on @modelcontextprotocol/server-sequential-thinking 2025.7.1 (stdio; an SDK 0.5
 * server) (issue 25): its one tool answers JSON text. Its switch `DISABLE_THOUGHT_LOGGING: "true"` is no secret,
 * and a `branchId` argument "true" must not turn the booleans of the recorded answers into REDACTED: the
 * inferred schema keeps `nextThoughtNeeded` a boolean, and the tool is typed (1 of 1).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { expectTyped, recordInferServe, type ScriptedCall } from '../helpers/record-infer.js';
import { REPO } from '../helpers/stdio-gateway.js';
import { toolDir } from '../../src/record/write.js';

const SERVER = join(REPO, 'node_modules/server-sequential-thinking-2025/dist/index.js');
const CALLS: readonly ScriptedCall[] = [
  { tool: 'sequentialthinking', arguments: { thought: 'First, list what is known.', thoughtNumber: 1, totalThoughts: 3, nextThoughtNeeded: true } },
  { tool: 'sequentialthinking', arguments: { thought: 'Then branch on the unknown.', thoughtNumber: 2, totalThoughts: 3, nextThoughtNeeded: true, branchFromThought: 1, branchId: 'true' } },
  { tool: 'sequentialthinking', arguments: { thought: 'Conclude.', thoughtNumber: 3, totalThoughts: 3, nextThoughtNeeded: false } },
];

beforeAll(ensureBuilt);

it('record → infer → serve: the one tool typed, its booleans booleans', async () => {
  const walk = await recordInferServe('thinking', () => ({ command: process.execPath, args: [SERVER], env: { DISABLE_THOUGHT_LOGGING: 'true' } }), CALLS);
  expect(Object.keys(walk.inferred)).toEqual(['sequentialthinking']);
  const schema = walk.inferred.sequentialthinking?.outputSchema as { properties: Record<string, { type: unknown }>; required: string[] };
  expect(schema.properties.nextThoughtNeeded).toEqual({ type: 'boolean' });
  expect(schema.properties.thoughtNumber).toEqual({ type: 'integer' });
  expect(schema.required).toEqual(expect.arrayContaining(['thoughtNumber', 'totalThoughts', 'nextThoughtNeeded', 'branches', 'thoughtHistoryLength']));
  expectTyped(walk, CALLS);
  // Every recording is the answer's JSON: the branch name "true" redacted where it is a string, the booleans
  // left booleans (they used to read `"nextThoughtNeeded": REDACTED`, which is no JSON).
  expect(walk.files).toEqual({ sequentialthinking: 3 });
  const dir = toolDir(join(walk.dir, 'recordings'), 'thinking', 'sequentialthinking');
  const texts = readdirSync(dir).map((f) => ((JSON.parse(readFileSync(join(dir, f), 'utf8')) as { result: { content: { text: string }[] } }).result.content[0]!.text));
  const parsed = texts.map((t) => JSON.parse(t) as { nextThoughtNeeded: unknown; branches: string[] });
  expect(parsed.map((p) => typeof p.nextThoughtNeeded)).toEqual(['boolean', 'boolean', 'boolean']);
  expect(parsed.flatMap((p) => p.branches)).toContain('REDACTED');
  expect(walk.typed.results[1]?.structuredContent).toMatchObject({ thoughtNumber: 2, nextThoughtNeeded: true, branches: ['true'] });
});
