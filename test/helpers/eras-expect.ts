/**
 * What each era must see (CONTRACT.md §4), and the differential: a session through the gateway against the
 * same session straight to the upstream may differ only in outputSchema, structuredContent and a text block
 * the gateway added.
 */
import { isDeepStrictEqual } from 'node:util';
import { expect } from 'vitest';
import type { JsonObject } from '../../src/json.js';
import { resultsOf, type ClientRevision, type EraClient } from './eras-clients.js';
import { ERA_TOOLS, type EraTool } from './eras-tools.js';

/** One client session: the tools/list result and each tool's tools/call result, by name. */
export interface EraSession {
  readonly list: JsonObject;
  readonly calls: ReadonlyMap<string, JsonObject>;
}

/** List, then call every era tool once, in table order. */
export async function runSession(client: EraClient): Promise<EraSession> {
  const list = await client.listTools();
  const calls = new Map<string, JsonObject>();
  for (const tool of ERA_TOOLS) calls.set(tool.name, await client.callTool(tool.name));
  return { list, calls };
}

function listed(list: JsonObject, name: string): JsonObject {
  const tools = list.tools as JsonObject[];
  const found = tools.find((t) => t.name === name);
  expect(found, `tool ${name} listed`).toBeDefined();
  return found!;
}

function textBlocks(result: JsonObject): string[] {
  return (result.content as JsonObject[]).filter((b) => b.type === 'text').map((b) => b.text as string);
}

/** The shape a revision must see, for one tool: `wrap` or `drop` for non-object roots of object-only eras. */
export type LegacyRootsMode = 'wrap' | 'drop';

/** The tool's schema and value as the revision must receive them; undefined = absent. */
export function expectedFor(tool: EraTool, revision: ClientRevision, legacyRoots: LegacyRootsMode): { schema?: JsonObject; value?: unknown } {
  if (revision === '2026-07-28') return { schema: tool.schema, value: tool.value };
  if (revision === '2025-03-26') return {};
  if (tool.objectRoot) return { schema: tool.schema, value: tool.value };
  if (legacyRoots === 'drop') return {};
  return { schema: tool.wrapped, value: { result: tool.value } };
}

/**
 * Assert the contract's shape for every tool. `schemaOf` lets a caller compare the schema with a tolerance
 * (a native upstream's own wrapping); by default it must equal the expected schema exactly.
 */
export function expectEraShape(
  session: EraSession,
  revision: ClientRevision,
  legacyRoots: LegacyRootsMode,
  compareSchema: (actual: unknown, expected: JsonObject, tool: EraTool) => void = (actual, expected) => expect(actual).toEqual(expected),
  textMayBeWrapped = false,
): void {
  for (const tool of ERA_TOOLS) {
    const want = expectedFor(tool, revision, legacyRoots);
    const definition = listed(session.list, tool.name);
    const result = session.calls.get(tool.name)!;
    expect(result.isError, `${tool.name} is not an error`).toBeFalsy();
    if (want.schema === undefined) expect(definition, `${tool.name} has no outputSchema`).not.toHaveProperty('outputSchema');
    else compareSchema(definition.outputSchema, want.schema, tool);
    if (want.value === undefined) expect(result, `${tool.name} has no structuredContent`).not.toHaveProperty('structuredContent');
    else expect(result.structuredContent, `${tool.name} structuredContent`).toEqual(want.value);
    // The JSON is always readable as text, with or without structuredContent.
    const texts = textBlocks(result);
    expect(texts.length, `${tool.name} has a text block`).toBeGreaterThan(0);
    const parsed = texts.map((t) => JSON.parse(t) as unknown);
    // A modern upstream that wrapped the value for an object-only session serialized {result: V}.
    if (textMayBeWrapped && !tool.objectRoot && !parsed.some((p) => isDeepStrictEqual(p, tool.value))) expect(parsed).toContainEqual({ result: tool.value });
    else expect(parsed).toContainEqual(tool.value);
  }
}

/** The received messages with what the gateway may change taken out (see the module comment). */
function comparable(gateway: JsonObject, direct: JsonObject | undefined): JsonObject {
  const out = structuredClone(gateway);
  const result = out.result as JsonObject | undefined;
  if (result === undefined) return out;
  if (Array.isArray(result.tools)) for (const tool of result.tools as JsonObject[]) delete tool.outputSchema;
  if (Array.isArray(result.content)) {
    delete result.structuredContent;
    const directContent = (direct?.result as JsonObject | undefined)?.content;
    const added = Array.isArray(directContent) ? result.content.length - directContent.length : 0;
    // Only a trailing text block may have been added.
    if (added === 1 && (result.content.at(-1) as JsonObject).type === 'text') result.content = result.content.slice(0, -1);
  }
  return out;
}

function stripped(direct: JsonObject): JsonObject {
  return comparable(direct, direct);
}

/** Assert the gateway session and the direct session differ only where the gateway may change things. */
export function expectOnlyRetrofitDiffers(gateway: EraClient, direct: EraClient): void {
  expect(gateway.received.length).toBe(direct.received.length);
  expect(resultsOf(gateway.received).length).toBeGreaterThan(ERA_TOOLS.length);
  const want = direct.received.map(stripped);
  const got = gateway.received.map((m, i) => comparable(m, direct.received[i]));
  expect(got).toEqual(want);
}
