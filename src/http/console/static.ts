/**
 * The console's pages: `dist/ui/index.html` and `dist/ui/assets/*`, built by vite from ui/ and shipped in the
 * package. Found from the package root (the directory holding package.json, walking up from this module), so
 * the same code serves from dist/ (npm start, the image) and from src/ (tests). Read once on first use and kept
 * in memory: they are small and never change while the gateway runs. Only names of the strict ASSET form are
 * ever looked up, and only among the files listed in the assets directory: no path reaches outside it.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** An asset name as vite writes them: a name, a hash, an extension; no slash, no leading dot. */
export const ASSET = /^[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*\.(?:js|css|svg|png|woff2|ico|map|json|txt)$/;

/** The most bytes of pages held in memory (a build beyond it is refused, not served in part). */
const MAX_BYTES = 16 * 1024 * 1024;

const TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.ico': 'image/x-icon',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** One file to serve. */
export interface UiFile {
  readonly type: string;
  readonly body: Buffer;
}

/** The built pages, or why there are none. */
export type UiFiles = { readonly ok: true; readonly index: Buffer; readonly assets: ReadonlyMap<string, UiFile> } | { readonly ok: false; readonly why: string };

/** The directory holding package.json, walking up from `from`. */
export function packageRoot(from: string = fileURLToPath(import.meta.url)): string | undefined {
  let dir = dirname(from);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const up = dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/** Read the built pages under `dir` (default `<package root>/dist/ui`). */
export async function readUiFiles(dir?: string): Promise<UiFiles> {
  const root = dir ?? join(packageRoot() ?? '.', 'dist', 'ui');
  let index: Buffer;
  try {
    index = await readFile(join(root, 'index.html'));
  } catch {
    return { ok: false, why: `${join(root, 'index.html')} is missing` };
  }
  const assets = new Map<string, UiFile>();
  let total = index.length;
  let names: string[] = [];
  try {
    names = (await readdir(join(root, 'assets'), { withFileTypes: true })).filter((e) => e.isFile() && ASSET.test(e.name)).map((e) => e.name);
  } catch {
    // A build without assets serves its shell alone.
  }
  for (const name of names) {
    const body = await readFile(join(root, 'assets', name));
    total += body.length;
    if (total > MAX_BYTES) return { ok: false, why: `the built pages exceed ${MAX_BYTES} bytes` };
    assets.set(name, { type: TYPES[extname(name)] ?? 'application/octet-stream', body });
  }
  return { ok: true, index, assets };
}
