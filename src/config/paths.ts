/**
 * Route checks JSON Schema cannot express: no upstream may take a route another upstream or the gateway itself
 * serves (./routes.ts lists them all, as src/http registers them). An upstream's routes are its path, an `sse:`
 * upstream's `<path>/message`, and every path under a `url:` upstream's `<path>/.well-known/`; the gateway's
 * are its operations and debug endpoints, `/ui…` with the console on, and the OAuth discovery routes. Two
 * equal routes would stop `serve` at start; a path under another's prefix would be silently shadowed. (The
 * path syntax and the always-reserved paths are in the schema too, for editors.)
 */
import { obj, upstreamPath } from './build.js';
import type { PositionIndex } from './positions.js';
import type { ConfigProblem, Segment } from './problems.js';
import { gatewayRoutes, reaches, upstreamRoutes, type Route, type RouteKind, type RoutedUpstream } from './routes.js';

export interface PathProblem {
  readonly path: readonly Segment[];
  readonly problem: ConfigProblem;
}

function kindOf(raw: unknown): RouteKind | undefined {
  const u = obj(raw);
  const kinds = (['url', 'sse', 'command'] as const).filter((k) => u[k] !== undefined);
  if (kinds.length !== 1) return undefined;
  return kinds[0] === 'url' ? 'http' : kinds[0] === 'sse' ? 'sse' : 'stdio';
}

/**
 * One problem per upstream whose routes collide: with an earlier upstream's (in file order), with a prefix
 * route of any other upstream, or with the gateway's own routes.
 */
export function checkPaths(root: unknown, index: PositionIndex): PathProblem[] {
  const upstreams: (RoutedUpstream & { readonly explicit: boolean })[] = [];
  for (const [name, raw] of Object.entries(obj(obj(root).upstreams))) {
    const kind = kindOf(raw);
    if (kind !== undefined) upstreams.push({ name, kind, path: upstreamPath(name, raw), explicit: typeof obj(raw).path === 'string' });
  }
  const gateway = gatewayRoutes(upstreams, { ui: obj(obj(root).ui).enabled === true });
  const routes = upstreams.map(upstreamRoutes);
  const out: PathProblem[] = [];
  upstreams.forEach((u, i) => {
    const own = routes[i]!.filter((r) => !r.prefix);
    const clash = (others: readonly Route[]): { mine: Route; theirs: Route } | undefined => {
      for (const theirs of others) {
        const mine = own.find((m) => reaches(m.path, theirs));
        if (mine) return { mine, theirs };
      }
      return undefined;
    };
    // Equal routes are reported at the later upstream; a path under another's prefix at the one under it.
    const found = clash(routes.slice(0, i).flat().filter((r) => !r.prefix)) ?? clash(routes.filter((_, j) => j !== i).flat().filter((r) => r.prefix)) ?? clash(gateway);
    if (!found) return;
    const path: Segment[] = u.explicit ? ['upstreams', u.name, 'path'] : ['upstreams', u.name];
    const { mine, theirs } = found;
    const which = mine.path === u.path ? `path ${u.path}` : `path ${u.path}: its route ${mine.path}`;
    const where = theirs.prefix ? `is under ${theirs.path}, which is reserved for ${theirs.what}` : `is already used by ${theirs.what}`;
    const note = u.explicit ? '' : ' (this is the default path /<name>/mcp)';
    out.push({ path, problem: index.problem(path, u.explicit ? 'value' : 'node', `${which} ${where}${note}`, ['upstreams', u.name]) });
  });
  return out;
}
