/**
 * Reads `outputSchemaFile` / `inputSchemaFile`: JSON or YAML, relative to the config file's directory.
 * Parsed with positions, so problems inside a schema (syntax, or later ajv compile errors from the policy)
 * are reported at that file's own line and column. No `${VAR}` expansion here: schema files are data.
 */
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { parseWithPositions, type PositionIndex } from './positions.js';
import type { ConfigProblem } from './problems.js';
import type { JsonSchema } from '../json.js';

export type SchemaFileResult =
  | { readonly ok: true; readonly file: string; readonly schema: JsonSchema; readonly index: PositionIndex }
  | { readonly ok: false; readonly file: string; readonly error?: string; readonly problems: ConfigProblem[] };

/** Where `ref` (as written in the config) points, given the config file's directory. */
export function schemaFilePath(configDir: string, ref: string): string {
  return isAbsolute(ref) ? ref : resolve(configDir, ref);
}

/** The largest schema file read: far past any real schema, short of what a device or a log would be. */
export const MAX_SCHEMA_FILE_BYTES = 16 * 1024 * 1024;

/**
 * Why `file` is not read, when it is no regular file or too large: a FIFO would hold the load (and with it
 * every later reload) until something writes to it, and a device (`/dev/zero`) would be read until memory ran out.
 */
async function unreadable(file: string): Promise<string | undefined> {
  const info = await stat(file);
  if (info.isDirectory()) return 'is a directory';
  if (!info.isFile()) return 'is not a regular file';
  if (info.size > MAX_SCHEMA_FILE_BYTES) return `is larger than ${MAX_SCHEMA_FILE_BYTES / 1024 / 1024} MiB`;
  return undefined;
}

/** Reads and parses one schema file, by absolute path. */
async function parseSchemaFile(file: string): Promise<SchemaFileResult> {
  let text: string;
  try {
    const why = await unreadable(file);
    if (why !== undefined) return { ok: false, file, error: `cannot read schema file ${file} (${why})`, problems: [] };
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (code ?? String(err));
    return { ok: false, file, error: `cannot read schema file ${file} (${why})`, problems: [] };
  }
  const parsed = parseWithPositions(text, file);
  if (parsed.problems.length > 0) return { ok: false, file, problems: parsed.problems };
  const value = parsed.value;
  if (typeof value !== 'boolean' && (value === null || typeof value !== 'object' || Array.isArray(value))) {
    const pos = parsed.index.locate([], 'value');
    const problem = { file, line: pos.line, col: pos.col, message: 'a JSON Schema must be an object or a boolean' };
    return { ok: false, file, problems: [problem] };
  }
  return { ok: true, file, schema: value as JsonSchema, index: parsed.index };
}

/**
 * The schema files of one config load: each is read and parsed once, however many tools and `$ref`s name it
 * (a reload makes a new one, so edited files are read again).
 */
export class SchemaFiles {
  readonly #files = new Map<string, Promise<SchemaFileResult>>();

  /** The file at absolute path `file`. */
  read(file: string): Promise<SchemaFileResult> {
    let result = this.#files.get(file);
    if (!result) this.#files.set(file, (result = parseSchemaFile(file)));
    return result;
  }
}

/**
 * Reads and parses one schema file named in the config. An unreadable file gives `error` (the caller reports
 * it at the config key); a file that parses badly gives problems inside that file.
 */
export function readSchemaFile(configDir: string, ref: string, files: SchemaFiles = new SchemaFiles()): Promise<SchemaFileResult> {
  return files.read(schemaFilePath(configDir, ref));
}
