/**
 * Places a policy compilation error (path from the config root) in a file: inside the schema file when the
 * path runs into an outputSchema/inputSchema that was read from `*SchemaFile` (or into a file such a schema
 * refers to, embedded in it at load), else in the config file.
 * Paths that run past existing nodes fall back to the deepest node that exists.
 */
import type { PolicyError } from '../retrofit/policy.js';
import { PositionIndex } from './positions.js';
import { at, type ConfigProblem, type Segment } from './problems.js';

const SCHEMA_KEYS: Readonly<Record<string, string>> = {
  outputSchema: 'outputSchema',
  outputSchemaFile: 'outputSchema',
  inputSchema: 'inputSchema',
  inputSchemaFile: 'inputSchema',
};

/**
 * @param fileIndexes positions of schema files, keyed by the JSON pointer of the place in the config the file's
 *   schema stands at (`/upstreams/<name>/tools/<key>/outputSchema`, and for a file embedded there because the
 *   schema `$ref`s it, `…/outputSchema/$defs/<embedded key>`); the longest that contains the error wins.
 */
export function policyProblem(
  err: PolicyError,
  configIndex: PositionIndex,
  fileIndexes: ReadonlyMap<string, PositionIndex>,
): ConfigProblem {
  const field = err.path[4] === undefined ? undefined : SCHEMA_KEYS[String(err.path[4])];
  const path: readonly Segment[] = field === undefined ? err.path : [...err.path.slice(0, 4), field, ...err.path.slice(5)];
  if (path[0] === 'upstreams' && path[2] === 'tools' && field !== undefined) {
    for (let n = path.length; n >= 5; n--) {
      const fileIndex = fileIndexes.get(PositionIndex.pointer(path.slice(0, n)));
      if (!fileIndex) continue;
      const inner = path.slice(n);
      const pos = fileIndex.locate(inner, 'value');
      return { file: fileIndex.file, line: pos.line, col: pos.col, message: at(inner, err.message) };
    }
  }
  return configIndex.problem(err.path, err.atKey === true ? 'key' : 'value', err.message);
}
