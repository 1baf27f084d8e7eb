/**
 * Places a policy compilation error (path from the config root) in a file: inside the schema file when the
 * path runs into an outputSchema/inputSchema that was read from `*SchemaFile`, else in the config file.
 * Paths that run past existing nodes fall back to the deepest node that exists.
 */
import type { PolicyError } from '../policy/types.js';
import { PositionIndex } from './positions.js';
import { at, type ConfigProblem, type Segment } from './problems.js';

const SCHEMA_KEYS: Readonly<Record<string, string>> = {
  outputSchema: 'outputSchema',
  outputSchemaFile: 'outputSchema',
  inputSchema: 'inputSchema',
  inputSchemaFile: 'inputSchema',
};

/**
 * @param fileIndexes positions of schema files, keyed by the JSON pointer of the schema's place in the config
 *   (`/upstreams/<name>/tools/<key>/outputSchema`).
 */
export function policyProblem(
  err: PolicyError,
  configIndex: PositionIndex,
  fileIndexes: ReadonlyMap<string, PositionIndex>,
): ConfigProblem {
  const path: readonly Segment[] = err.path;
  const field = path[4] === undefined ? undefined : SCHEMA_KEYS[String(path[4])];
  if (path[0] === 'upstreams' && path[2] === 'tools' && field !== undefined) {
    const fileIndex = fileIndexes.get(PositionIndex.pointer([...path.slice(0, 4), field]));
    if (fileIndex) {
      const inner = path.slice(5);
      const pos = fileIndex.locate(inner, 'value');
      return { file: fileIndex.file, line: pos.line, col: pos.col, message: at(inner, err.message) };
    }
  }
  return configIndex.problem(path, 'value', err.message);
}
