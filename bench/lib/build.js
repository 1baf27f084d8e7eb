/**
 * Build the gateway (tsc -p tsconfig.build.json) unless dist/ is already newer than every source file, so
 * `npm run bench -- --quick` does not spend its budget recompiling an up-to-date tree.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { runToEnd } from './procs.js';
import { ROOT } from './servers.js';

function newest(dir) {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Resolves true when it had to build. */
export async function ensureBuilt() {
  const marker = join(ROOT, 'dist', 'cli.js');
  const sources = Math.max(newest(join(ROOT, 'src')), ...['tsconfig.json', 'tsconfig.build.json', 'package.json'].map((f) => statSync(join(ROOT, f)).mtimeMs));
  if (existsSync(marker) && statSync(marker).mtimeMs >= sources) return false;
  console.error('# building: tsc -p tsconfig.build.json');
  await runToEnd(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, timeoutMs: 300_000 });
  return true;
}
