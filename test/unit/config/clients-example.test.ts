/** config/clients.example.yaml loads as documented, and its profiles go to the clients they name (issue 26). */
import { readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { REPO } from '../../helpers/stdio-gateway.js';
import { tempFiles } from './helpers.js';

it('loads beside an upstream and matches the clients it names', async () => {
  const example = await readFile(resolve(REPO, 'config/clients.example.yaml'), 'utf8');
  const dir = await tempFiles({});
  const file = join(dir, 'gateway.yaml');
  await writeFile(file, `${example}\nupstreams:\n  a:\n    url: http://127.0.0.1:9/mcp\n`);
  const { policies } = await loadConfig(file);
  const profiles = policies.get('a')?.profiles;
  const match = (name: string, version = '1.0.0'): string | undefined => profiles?.match({ name, version, revision: '2025-11-25' })?.name;
  expect([match('claude-code', '2.1.280'), match('claude-ai'), match('codex-mcp-client', '0.154.0'), match('my-legacy-host-2'), match('cursor')]).toEqual(['claude', 'claude', 'codex', 'text-only', undefined]);
});
