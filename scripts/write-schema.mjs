// Writes mcp-retrofit.schema.json from src/config/schema.ts (`npm run schema`).
// schema.ts has no imports, so transpiling that one file is enough: no build of the whole tree needed.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = fileURLToPath(new URL('..', import.meta.url));
const source = await readFile(`${root}src/config/schema.ts`, 'utf8');
const { outputText } = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
});
const mod = await import(`data:text/javascript;base64,${Buffer.from(outputText).toString('base64')}`);
const out = `${root}mcp-retrofit.schema.json`;
await writeFile(out, mod.renderSchemaFile());
process.stdout.write(`wrote ${out}\n`);
