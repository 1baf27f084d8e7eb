/**
 * From zero to typed on a real published server, @modelcontextprotocol/server-memory 2025.8.4 (SDK 1.0.1: it
 * answers 2024-11-05 and in JSON text only; the gateway bridges a 2025-11-25 client, so it gets outputSchemas
 * and structuredContent): a session recorded through the gateway, `infer`, a gateway on the inferred config,
 * and the same session (against a fresh memory file) through it gets validated structuredContent from every
 * tool that answers JSON, with `required` holding what every answer had.
 */
import { join, resolve } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { expectTyped, recordInferServe, type ScriptedCall } from '../helpers/record-infer.js';
import { REPO } from '../helpers/stdio-gateway.js';

const SERVER = resolve(REPO, 'node_modules/server-memory-2025/dist/index.js');
const CALLS: readonly ScriptedCall[] = [
  { tool: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }, { name: 'Babbage', entityType: 'person', observations: [] }] } },
  { tool: 'create_entities', arguments: { entities: [{ name: 'Engine', entityType: 'machine', observations: ['never finished'] }] } },
  { tool: 'create_relations', arguments: { relations: [{ from: 'Ada', to: 'Babbage', relationType: 'worked with' }] } },
  { tool: 'create_relations', arguments: { relations: [{ from: 'Babbage', to: 'Engine', relationType: 'designed' }] } },
  { tool: 'add_observations', arguments: { observations: [{ entityName: 'Babbage', contents: ['designed the Analytical Engine'] }] } },
  { tool: 'read_graph' },
  { tool: 'search_nodes', arguments: { query: 'person' } },
  { tool: 'open_nodes', arguments: { names: ['Ada', 'Engine'] } },
  { tool: 'delete_observations', arguments: { deletions: [{ entityName: 'Engine', observations: ['never finished'] }] } },
  { tool: 'read_graph' },
  { tool: 'delete_relations', arguments: { relations: [{ from: 'Babbage', to: 'Engine', relationType: 'designed' }] } },
  { tool: 'delete_entities', arguments: { entityNames: ['Engine'] } },
];
const ALL_TOOLS = ['add_observations', 'create_entities', 'create_relations', 'delete_entities', 'delete_observations', 'delete_relations', 'open_nodes', 'read_graph', 'search_nodes'];

beforeAll(ensureBuilt);

it('record → infer → serve: 9 of 9 tools typed for v1 and v2 clients, no fresh call failing (issue 25)', async () => {
  const walk = await recordInferServe('memory', (dir) => ({ command: process.execPath, args: [SERVER], env: { MEMORY_FILE_PATH: join(dir, 'memory.json') } }), CALLS);
  // Every tool the server lists is typed: the JSON ones by their values, the prose ones ("Observations
  // deleted successfully") as strings.
  expect(walk.recorded.tools.map((t) => t.name).sort()).toEqual(ALL_TOOLS);
  expect(Object.keys(walk.inferred).sort()).toEqual(ALL_TOOLS);
  for (const tool of ['delete_entities', 'delete_observations', 'delete_relations']) expect([tool, walk.inferred[tool]]).toEqual([tool, { outputSchema: { type: 'string' } }]);
  expect(walk.freshOut.match(/# verified on \d+ fresh calls? too/g)).toHaveLength(9);
  expect(walk.inferOut).toMatch(/# delete_observations: 1 sample of plain prose: proposed as a string \(the text as it is\)\n/);
  expectTyped(walk, CALLS);
  expect(walk.typed.results[8]?.structuredContent).toEqual({ result: 'Observations deleted successfully' });

  const entity = { type: 'object', required: ['name', 'entityType', 'observations'], properties: { observations: { type: 'array', items: { type: 'string' } } } };
  // What the server reads back from its file carries `"type": "entity"` / `"relation"` too, in every answer.
  const stored = { ...entity, required: ['type', ...entity.required], properties: { ...entity.properties, type: { type: 'string' } } };
  const relation = { type: 'object', required: ['type', 'from', 'to', 'relationType'] };
  expect(walk.inferred.read_graph?.outputSchema).toMatchObject({ type: 'object', required: ['entities', 'relations'], properties: { entities: { type: 'array', items: stored }, relations: { type: 'array', items: relation } } });
  expect(walk.inferred.create_entities?.outputSchema).toMatchObject({ type: 'array', items: entity });
  expect(walk.inferred.add_observations?.outputSchema).toMatchObject({ type: 'array', items: { type: 'object', required: ['entityName', 'addedObservations'] } });

  // A fresh memory, the same session: the client gets the graph as typed values.
  const graph = walk.typed.results[5]?.structuredContent as { entities: { name: string }[]; relations: unknown[] };
  expect(graph.entities.map((e) => e.name)).toEqual(['Ada', 'Babbage', 'Engine']);
  expect(graph.relations).toHaveLength(2);
  expect(walk.typed.results[0]?.structuredContent).toMatchObject({ result: [{ name: 'Ada' }, { name: 'Babbage' }] });
  const bridged = (await walk.gateway.metrics.bridgedSessions.get()).values.map((v) => `${v.labels.from} over ${v.labels.to}`);
  expect(bridged).toEqual(['2025-11-25 over 2024-11-05']);
});
