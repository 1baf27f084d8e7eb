/**
 * The usable rest of an upstream entry that has problems, so that the loader can still read its schema files
 * and compile its tools — not to serve it, only to report the problems in its other parts in the same run
 * (a broken `flags` no longer hides a broken `pattern`). Scalars and arrays at a problem's path are dropped
 * (the builder reads defaults instead); objects stay, since their other members may be fine; regex flags
 * keep their usable letters, so the pattern is compiled as it will be once the flags are fixed.
 */
import { usableFlags } from './flags.js';
import type { Segment } from './problems.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

function copy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copy);
  if (!isObj(value)) return value;
  const out: Obj = {};
  // defineProperty: a `__proto__` key stays an ordinary member, as the parser made it.
  for (const [k, v] of Object.entries(value)) Object.defineProperty(out, k, { value: copy(v), enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * `raw` (the value at `base`) without what the problem paths point at. `paths` are from the config root;
 * those outside `base` are ignored. Never changes `raw`.
 */
export function salvage(raw: unknown, base: readonly Segment[], paths: readonly (readonly Segment[])[]): unknown {
  const out = copy(raw);
  for (const path of paths) {
    if (path.length <= base.length || !base.every((seg, i) => String(path[i]) === String(seg))) continue;
    const rest = path.slice(base.length).map(String);
    let parent: unknown = out;
    for (const seg of rest.slice(0, -1)) parent = isObj(parent) ? parent[seg] : undefined;
    const last = rest.at(-1);
    if (!isObj(parent) || last === undefined || !Object.hasOwn(parent, last)) continue;
    const value = parent[last];
    if (isObj(value)) continue;
    if (last === 'flags' && rest.at(-2) === 'extract' && typeof value === 'string') parent[last] = usableFlags(value);
    else delete parent[last];
  }
  return out;
}
