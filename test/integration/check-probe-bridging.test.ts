/**
 * `check --probe` says, per upstream, which protocol revision the server answered and whether clients will be
 * bridged: a text-only server on SDK 1.10.2 answers 2024-11-05 (bridged, unless `bridge: false`), one on
 * SDK 1.13.3 answers 2025-06-18 (nothing to bridge); and the revisions each client is served at.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect, it, onTestFinished } from 'vitest';
import { run } from '../../src/cli/check.js';
import { LEGACY_SDK_SERVER } from '../helpers/legacy-sdk.js';

function upstream(name: string, sdk: string, extra = ''): string {
  return `  ${name}:\n    command: ${JSON.stringify(process.execPath)}\n    args: [${JSON.stringify(LEGACY_SDK_SERVER)}, stdio]\n    env: { SDK: ${sdk} }\n${extra}`;
}

it('prints each upstream\'s revision and whether clients are bridged', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'retrofit-probe-bridge-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, `upstreams:\n${upstream('old', 'sdk-1-10')}${upstream('off', 'sdk-1-10', '    bridge: false\n')}${upstream('newer', 'sdk-1-13')}`);
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on('data', (c: Buffer) => chunks.push(c));
  expect(await run(['--config', file, '--probe'], { stdout, stderr: new PassThrough() })).toBe(0);
  const lines = Buffer.concat(chunks).toString('utf8').split('\n');
  // (The server's name carries the SDK env value, which the probe scrubs like every configured env value.)
  const header = (name: string): string | undefined => lines.find((l) => l.startsWith(`${name}: `));
  expect(header('old')).toMatch(/^old: 4 tools \(stdio, server legacy-text-\S+ 1\.0\.0, revision 2024-11-05: clients asking for 2025-06-18 or later are bridged\)$/);
  expect(header('off')).toMatch(/^off: 4 tools \(stdio, server \S+ 1\.0\.0, revision 2024-11-05: not bridged \(bridge: false\), clients get no structured output\)$/);
  expect(header('newer')).toMatch(/^newer: 4 tools \(stdio, server \S+ 1\.0\.0, revision 2025-06-18\)$/);
  // The line after each header: the revisions a client is served at through the gateway.
  const served = (name: string): string | undefined => lines[lines.findIndex((l) => l.startsWith(`${name}: `)) + 1];
  expect(served('old')).toBe('  served at: 2026-07-28 (on pooled sessions, up to 4), 2025-11-25 (bridged), 2025-06-18 (bridged), 2025-03-26 → 2024-11-05, 2024-11-05');
  expect(served('off')).toBe('  served at: 2026-07-28: no (stateless.serve or bridge false), 2025-11-25 → 2024-11-05, 2025-06-18 → 2024-11-05, 2025-03-26 → 2024-11-05, 2024-11-05');
  expect(served('newer')).toBe('  served at: 2026-07-28 (on pooled sessions, up to 4), 2025-11-25 → 2025-06-18, 2025-06-18, 2025-03-26, 2024-11-05');
});
