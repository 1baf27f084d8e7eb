/**
 * Route checks JSON Schema cannot express: every upstream's effective path (its `path`, else `/<name>/mcp`)
 * must be unique across upstreams. (Reserved paths and the path syntax are in the schema.)
 */
import { obj, upstreamPath } from './build.js';
import type { PositionIndex } from './positions.js';
import type { ConfigProblem, Segment } from './problems.js';

export interface PathProblem {
  readonly path: readonly Segment[];
  readonly problem: ConfigProblem;
}

/** One problem per upstream whose route an earlier upstream (in file order) already uses. */
export function checkPaths(root: unknown, index: PositionIndex): PathProblem[] {
  const owners = new Map<string, string>();
  const out: PathProblem[] = [];
  for (const [name, raw] of Object.entries(obj(obj(root).upstreams))) {
    const route = upstreamPath(name, raw);
    // Trailing slashes do not make a different route for a client.
    const key = route.length > 1 ? route.replace(/\/+$/, '') : route;
    const owner = owners.get(key);
    if (owner === undefined) {
      owners.set(key, name);
      continue;
    }
    const explicit = typeof obj(raw).path === 'string';
    const path: Segment[] = explicit ? ['upstreams', name, 'path'] : ['upstreams', name];
    const message = `path ${route} is already used by upstream "${owner}"${explicit ? '' : ' (this is the default path /<name>/mcp)'}`;
    out.push({ path, problem: index.problem(path, explicit ? 'value' : 'node', message, ['upstreams', name]) });
  }
  return out;
}
