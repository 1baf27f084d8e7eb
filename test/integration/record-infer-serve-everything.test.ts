/**
 * From zero to typed on a real published server, @modelcontextprotocol/server-everything (stdio): a session
 * recorded through the gateway, `infer`, a gateway on the inferred config, and the same session through it
 * gets validated structuredContent from every tool whose answers are structured: get-env (JSON text) and
 * get-structured-content (the server's own structuredContent, now checked against the inferred schema);
 * its prose, images and resource links get no entry.
 */
import { resolve } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { expectTyped, recordInferServe, type ScriptedCall } from '../helpers/record-infer.js';
import { EVERYTHING_SERVER } from '../helpers/stdio-gateway.js';

const CALLS: readonly ScriptedCall[] = [
  { tool: 'echo', arguments: { message: 'hello there' } },
  { tool: 'get-sum', arguments: { a: 2, b: 3 } },
  { tool: 'get-env' },
  { tool: 'get-env' },
  { tool: 'get-structured-content', arguments: { location: 'Chicago' } },
  { tool: 'get-structured-content', arguments: { location: 'Los Angeles' } },
  { tool: 'get-annotated-message', arguments: { messageType: 'debug', includeImage: false } },
  { tool: 'get-tiny-image' },
  { tool: 'get-resource-links', arguments: { count: 2 } },
];

beforeAll(ensureBuilt);

it('record → infer → serve: the structured tools get valid structuredContent', async () => {
  const walk = await recordInferServe('everything', () => ({ command: process.execPath, args: [resolve(EVERYTHING_SERVER), 'stdio'] }), CALLS);
  expect(walk.files).toEqual({ echo: 1, 'get-annotated-message': 1, 'get-env': 2, 'get-resource-links': 1, 'get-structured-content': 2, 'get-sum': 1, 'get-tiny-image': 1 });
  expect(Object.keys(walk.inferred).sort()).toEqual(['echo', 'get-annotated-message', 'get-env', 'get-resource-links', 'get-structured-content', 'get-sum', 'get-tiny-image']);
  // The prose tools as strings (their text, as it is).
  for (const prose of ['echo', 'get-annotated-message', 'get-resource-links', 'get-sum', 'get-tiny-image']) expect(walk.inferred[prose]).toEqual({ outputSchema: { type: 'string' } });
  expect(walk.inferOut).toContain('# get-structured-content: 2 samples, read as native\n');
  expectTyped(walk, CALLS);

  // get-env answers the child's environment as JSON text: every variable it had is required.
  const env = JSON.parse((walk.recorded.results[2]?.content as { text: string }[])[0]!.text) as Record<string, string>;
  expect(walk.inferred['get-env']).toEqual({ extract: { format: 'json' }, outputSchema: { type: 'object', properties: Object.fromEntries(Object.keys(env).map((k) => [k, { type: 'string' }])), required: Object.keys(env) } });
  expect(walk.typed.results[2]?.structuredContent).toEqual(env);
  // The server's own structuredContent, checked against the inferred schema (every sample was an integer).
  expect(walk.inferred['get-structured-content']?.outputSchema).toEqual({
    type: 'object',
    properties: { temperature: { type: 'integer' }, conditions: { type: 'string' }, humidity: { type: 'integer' } },
    required: ['temperature', 'conditions', 'humidity'],
  });
  expect(walk.typed.results[4]?.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
  const outcomes = (await walk.gateway.metrics.retrofits.get()).values.map((v) => `${v.labels.tool} ${v.labels.outcome} ${v.value}`);
  expect(outcomes.sort()).toEqual(['echo extracted 1', 'get-annotated-message extracted 1', 'get-env extracted 2', 'get-resource-links extracted 1', 'get-structured-content native 2', 'get-sum extracted 1', 'get-tiny-image extracted 1']);
});
