/**
 * Builds the operator console (ui/index.html and what it imports) into dist/ui/: the gateway serves
 * dist/ui/index.html at /ui/ and dist/ui/assets/<file> at /ui/assets/<file> (docs/console.md). Everything is
 * bundled (no CDN, nothing fetched at run time) and no script is inlined, because the page is served with
 * `default-src 'self'`.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/ui/',
  logLevel: 'warn',
  clearScreen: false,
  publicDir: false,
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // An inline polyfill would be refused by the CSP; every browser the console targets has modulepreload.
    modulePreload: { polyfill: false },
    // Inlined assets would become data: URLs in CSS or script; keep every asset a file under /ui/assets/.
    assetsInlineLimit: 0,
    reportCompressedSize: false,
    sourcemap: false,
    target: 'es2022',
  },
});
