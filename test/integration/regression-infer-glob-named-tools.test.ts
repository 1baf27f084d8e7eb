/**
 * Regression: infer wrote a tool's name as its `tools:` key as is, so a name holding glob characters became a
 * glob. Served, `"!legacy"` (a negation) governed every tool but itself — `x?` and the tools infer gave no
 * entry — and `x?` also governed `xy`: the v1 client got `isError: true` for upstream answers that were
 * fine, the tools' own recorded answers included. Now each such key escapes its glob characters and governs
 * its tool alone. Record → infer → check → serve, with a real stdio server and real v1 and v2 clients.
 */
import { beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../helpers/cli.js';
import { recordInferServe, type CallResult, type ScriptedCall } from '../helpers/record-infer.js';
import { REPO } from '../helpers/stdio-gateway.js';
import { join } from 'node:path';

const SERVER = join(REPO, 'test/fixtures/servers/canned-results-server.mjs');
const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
const image = { content: [{ type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' }] };
const RESULTS = {
  'x?': [text('{"a":1}'), text('{"a":2}')],
  '!legacy': [text('{"b":1}'), text('{"b":2}')],
  xy: [image],
  other: [image],
};
const CALLS: readonly ScriptedCall[] = Object.entries(RESULTS).flatMap(([tool, list]) => list.map((_, i) => ({ tool, arguments: { i } })));

beforeAll(ensureBuilt);

it('infer escapes the glob characters of a tool name, so its key governs that tool alone', async () => {
  const walk = await recordInferServe('canned', () => ({ command: process.execPath, args: [SERVER], env: { CANNED_RESULTS: JSON.stringify(RESULTS) } }), CALLS);
  const outcome = (r: CallResult | undefined) => ({ isError: r?.isError ?? false, structured: r?.structuredContent });
  for (const session of [walk.typed, walk.typedV2]) {
    const listed = new Map(session.tools.map((t) => [t.name as string, t.outputSchema]));
    expect([...listed].filter(([, schema]) => schema !== undefined).map(([name]) => name).sort()).toEqual(['!legacy', 'x?']);
    expect(session.results.map(outcome)).toEqual([{ isError: false, structured: { a: 1 } }, { isError: false, structured: { a: 2 } }, { isError: false, structured: { b: 1 } }, { isError: false, structured: { b: 2 } }, { isError: false, structured: undefined }, { isError: false, structured: undefined }]);
  }
  expect(Object.keys(walk.inferred).sort()).toEqual(['\\!legacy', 'x\\?']);
  expect(walk.inferOut).toContain('the name holds glob characters: its key is written "x\\\\?", so it governs this tool alone');
  await walk.gateway.app.close();
});
