/** Test helpers: config files in a fresh temporary directory, removed after each test. */
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { onTestFinished } from 'vitest';
import { ConfigError, loadConfig, type ConfigProblem, type LoadedConfig } from '../../../src/config/load.js';

/** Writes `files` (relative path → text) into a new temp dir, removed when the test finishes. */
export async function tempFiles(files: Readonly<Record<string, string>>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'retrofit-config-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, name)), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

/** Loads `config.yaml` (plus other files) from a temp dir. */
export async function load(
  yaml: string,
  env: Record<string, string> = {},
  others: Readonly<Record<string, string>> = {},
): Promise<{ dir: string; loaded: LoadedConfig }> {
  const dir = await tempFiles({ 'config.yaml': yaml, ...others });
  return { dir, loaded: await loadConfig(join(dir, 'config.yaml'), { env }) };
}

/** The problems loading must fail with (fails the test when loading succeeds). */
export async function problemsOf(
  yaml: string,
  env: Record<string, string> = {},
  others: Readonly<Record<string, string>> = {},
): Promise<{ dir: string; problems: readonly ConfigProblem[] }> {
  const dir = await tempFiles({ 'config.yaml': yaml, ...others });
  try {
    await loadConfig(join(dir, 'config.yaml'), { env });
  } catch (err) {
    if (err instanceof ConfigError) return { dir, problems: err.problems };
    throw err;
  }
  throw new Error('expected the config to be rejected');
}
