/** `mcp-retrofit try` with the issue-16 formats and keys: the same engine, so the same result as serving. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { run } from '../../../src/cli/try.js';
import { textSink } from '../../helpers/cli.js';

const CONFIG = `
upstreams:
  s:
    url: http://127.0.0.1:9/mcp
    tools:
      status:
        outputSchema: { type: array, items: { type: object, properties: { service: { type: string }, uptime: { type: integer } }, required: [service] } }
        extract: { format: table }
      rows:
        outputSchema: { type: array, items: { type: object, properties: { zip: { type: string } }, additionalProperties: false } }
        extract: { format: csv, delimiter: "\\t" }
        removeAdditional: true
      info:
        outputSchema: { type: object, properties: { permissions: { type: string } } }
        extract: { format: yaml }
      watched:
        outputSchema: { type: object, properties: { n: { type: integer } } }
        shadow: true
`;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'retrofit-try-formats-'));
  await writeFile(join(dir, 'config.yaml'), CONFIG);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tryText(tool: string, text: string) {
  await writeFile(join(dir, 'in.txt'), text);
  const stdout = textSink();
  const stderr = textSink();
  const code = await run(['--config', join(dir, 'config.yaml'), '--upstream', 's', '--tool', tool, '--text-file', join(dir, 'in.txt'), '--protocol', '2026-07-28'], { stdout, stderr });
  return { code, result: JSON.parse(stdout.text()) as { structuredContent?: unknown }, stderr: stderr.text() };
}

describe('try with table, csv, removeAdditional and yaml', () => {
  it('a pipe table, cells typed by the schema', async () => {
    const r = await tryText('status', '| service | uptime |\n|---|--:|\n| api | 12 |\n');
    expect(r.code).toBe(0);
    expect(r.result.structuredContent).toEqual([{ service: 'api', uptime: 12 }]);
    expect(r.stderr).toContain('try: extracted (table)');
  });
  it('TSV with a column the schema forbids, dropped; leading zeros kept', async () => {
    const r = await tryText('rows', 'zip\tcity\n02134\tBoston\n');
    expect(r.result.structuredContent).toEqual([{ zip: '02134' }]);
  });
  it('yaml: says that the parse runs on the isolation worker, and keeps 644 a string', async () => {
    const r = await tryText('info', 'permissions: 644\n');
    expect(r.result.structuredContent).toEqual({ permissions: '644' });
    expect(r.stderr).toContain("try: note: yaml parsing; the gateway runs this tool's extraction on its isolation worker, under a deadline");
  });
  it('shadow: prints the unchanged result the client gets and says so; the outcome is what the retrofit found', async () => {
    const r = await tryText('watched', '{"n": 1}');
    expect(r.result).toEqual({ content: [{ type: 'text', text: '{"n": 1}' }] });
    expect(r.stderr).toContain('try: note: tool "watched" is served in shadow mode');
    expect(r.stderr).toContain('try: extracted (json)');
  });
});
