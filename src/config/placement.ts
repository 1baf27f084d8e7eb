/**
 * Where a misplaced key belongs. The table of which key lives where is read off CONFIG_SCHEMA itself (every
 * object's `properties`, map entries through `additionalProperties`), so a key added to the schema is found
 * here too: `select` at a tool's level → "it belongs under `extract`"; `outputSchema` at an upstream's level
 * → "it belongs under `tools.<name>`"; `port` at the root → "`listen`"; `url` in a tool → "`upstreams.a`".
 */
import { CONFIG_SCHEMA } from './schema.js';
import type { Segment } from './problems.js';

/** A place keys are defined at: the path of an object in the config, `*` standing for any map entry. */
type Place = readonly string[];

const ANY = '*';
type Node = Readonly<Record<string, unknown>>;
const asNode = (v: unknown): Node | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Node) : undefined);

/** key → every place whose object defines it, in schema order. */
function buildTable(schema: Node): ReadonlyMap<string, readonly Place[]> {
  const table = new Map<string, Place[]>();
  const visit = (node: Node, place: Place): void => {
    const properties = asNode(node.properties);
    for (const [key, child] of Object.entries(properties ?? {})) {
      table.set(key, [...(table.get(key) ?? []), place]);
      const next = asNode(child);
      if (next) visit(next, [...place, key]);
    }
    const entries = asNode(node.additionalProperties);
    if (entries) visit(entries, [...place, ANY]);
  };
  visit(schema, []);
  return table;
}

const TABLE = buildTable(CONFIG_SCHEMA);

/** The place a concrete config path is (map entries become `*`); undefined where the schema has no object. */
function placeOf(path: readonly Segment[]): Place | undefined {
  let node: Node | undefined = CONFIG_SCHEMA;
  const place: string[] = [];
  for (const seg of path) {
    const key = String(seg);
    const named = asNode(asNode(node?.properties)?.[key]);
    if (named) {
      place.push(key);
      node = named;
      continue;
    }
    const entry = asNode(node?.additionalProperties);
    if (!entry) return undefined;
    place.push(ANY);
    node = entry;
  }
  return place;
}

/** How the root reads in shown(): no path at all. */
const ROOT = '``';
const shown = (segments: readonly string[]): string => `\`${segments.map((s) => (s === ANY ? '<name>' : s)).join('.')}\``;

/**
 * Where `key`, found unknown at `path`, is defined instead: `it belongs under \`extract\``, relative to `path`
 * when the place is below it, else from the root with the names of `path` filled in. Undefined when the
 * schema defines the key nowhere (then a typo hint may apply).
 */
export function placementHint(key: string, path: readonly Segment[]): string | undefined {
  const here = placeOf(path);
  const places = (TABLE.get(key) ?? []).filter((p) => !here || p.join('/') !== here.join('/'));
  if (places.length === 0) return undefined;
  const below: string[] = [];
  const elsewhere: { text: string; shared: number }[] = [];
  for (const place of places) {
    if (here && here.every((seg, i) => place[i] === seg)) {
      below.push(shown(place.slice(here.length)));
      continue;
    }
    // Fill the map entries this path shares with the place (`upstreams.weather`), leave the rest generic.
    let shared = 0;
    while (shared < place.length && here?.[shared] === place[shared]) shared++;
    const filled = place.map((seg, i) => (i < shared && seg === ANY ? String(path[i]) : seg));
    elsewhere.push({ text: shown(filled), shared });
  }
  // Nearest first: places below this one, then those sharing the longest part of its path.
  elsewhere.sort((a, b) => b.shared - a.shared);
  const all = [...new Set([...below, ...elsewhere.map((e) => e.text)])];
  // A key of the config's root (`limits` written inside an upstream) has no place to be "under".
  const root = all.includes(ROOT);
  const under = all.filter((text) => text !== ROOT);
  const at = root ? 'at the top level of the config' : '';
  return under.length === 0 ? `it belongs ${at}` : `it belongs under ${under.join(' or ')}${root ? ` or ${at}` : ''}`;
}
