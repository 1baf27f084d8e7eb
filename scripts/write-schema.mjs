// Writes mcp-retrofit.schema.json from src/config/schema.ts (`npm run schema`).
// The schema files (and ../src/config/routes.ts, the reserved paths) import only each other, so transpiling those is enough: no build of the whole tree needed.
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const FILES = ['schema.ts', 'schema-tool.ts', 'schema-headers.ts', 'routes.ts'];
const dir = await mkdtemp(join(tmpdir(), 'mcp-retrofit-schema-'));
try {
  for (const file of FILES) {
    const source = await readFile(`${root}src/config/${file}`, 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(join(dir, file.replace(/\.ts$/, '.mjs')), outputText.replaceAll(/from '\.\/([\w-]+)\.js'/g, "from './$1.mjs'"));
  }
  const mod = await import(pathToFileURL(join(dir, 'schema.mjs')).href);
  const out = `${root}mcp-retrofit.schema.json`;
  await writeFile(out, mod.renderSchemaFile());
  process.stdout.write(`wrote ${out}\n`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
