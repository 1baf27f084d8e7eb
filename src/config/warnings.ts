/**
 * Warnings about a config that loads: settings that work, but not as their words suggest. `check` prints
 * them as `FILE:LINE:COL warning: …` after `ok` (they never fail it). Two kinds:
 * - `onInvalid: passthrough` serves its tools in shadow mode (src/retrofit/engine.ts `inShadow`), because a
 *   result passed through without the structuredContent an advertised schema promises makes strict clients
 *   throw;
 * - a configured schema that a `schemaDialect: 2020-12` client profile serves as written, in its own draft,
 *   because it has no faithful 2020-12 rewrite (src/retrofit/dialect.ts `servedAsWritten`): the profile is
 *   there for clients whose validator reads only 2020-12.
 */
import { readFile } from 'node:fs/promises';
import type { ClientProfileConfig } from '../policy/clients.js';
import { eraOf } from '../protocol/era.js';
import { servedAsWritten } from '../retrofit/dialect.js';
import { isShadowed, type ToolConfig, type ToolDefaults } from '../retrofit/settings.js';
import type { LoadedConfig } from './load.js';
import { parseWithPositions, type PositionIndex } from './positions.js';
import type { KeyWarning } from '../policy/unmatched.js';
import { at, type ConfigProblem, type Segment } from './problems.js';

/** The one wording of the passthrough warning, for the tool entry at `path`. */
export function passthroughWarning(path: readonly Segment[]): string {
  return `warning: ${at(path, 'onInvalid: passthrough serves this tool in shadow mode: it is listed without its outputSchema and every result reaches the client unchanged (outcomes are still counted, mode="shadow"); write `shadow: true` to say so')}`;
}

/** The one wording of a `tools:` key that governs no listed tool (src/policy/unmatched.ts finds them): `upstreams.NAME.tools: key "K" …`. */
export function unmatchedKeyWarning(upstream: string, warning: KeyWarning): string {
  return at(['upstreams', upstream, 'tools'], `key ${JSON.stringify(warning.key)} ${warning.message}`);
}

/** The one wording of a configured schema (at `path`) a `schemaDialect: 2020-12` profile serves unrewritten, and why. */
export function dialectWarning(path: readonly Segment[], profile: string, reason: string): string {
  return `warning: ${at(path, `clients of profile ${JSON.stringify(profile)} (schemaDialect: 2020-12) get this schema as written, in its own draft: it has no faithful 2020-12 rewrite (${reason})`)}`;
}

/** True when clients of the profile are shown outputSchemas: not stripped, and not only revisions that have none. */
function showsOutputSchema(profile: ClientProfileConfig): boolean {
  const revisions = profile.match.revision ?? [];
  return profile.outputSchema !== 'strip' && !(revisions.length > 0 && revisions.every((r) => eraOf(r) === 'none'));
}

/**
 * The schemas of one tool entry that some 2020-12 profile serves as written: [field as written, profile name,
 * reason]. A shadowed outputSchema is never shown (its tool is listed as the upstream declares it); a
 * configured inputSchema always is.
 */
function unrewritten(tool: ToolConfig, defaults: ToolDefaults, profiles: readonly ClientProfileConfig[]): [string, string, string][] {
  const out: [string, string, string][] = [];
  const fields = [
    { schema: tool.inputSchema, field: tool.inputSchemaFile === undefined ? 'inputSchema' : 'inputSchemaFile', shown: () => true },
    { schema: isShadowed(tool, defaults) ? undefined : tool.outputSchema, field: tool.outputSchemaFile === undefined ? 'outputSchema' : 'outputSchemaFile', shown: showsOutputSchema },
  ];
  for (const { schema, field, shown } of fields) {
    const reason = schema === undefined ? undefined : servedAsWritten(schema);
    if (reason === undefined) continue;
    for (const profile of profiles) if (profile.schemaDialect === '2020-12' && shown(profile)) out.push([field, profile.name, reason]);
  }
  return out;
}

/** Every warning of a loaded config, in file order; `index` places them (absent: line 1, column 1). */
export function configWarnings(loaded: LoadedConfig, index: PositionIndex | undefined): ConfigProblem[] {
  const { config } = loaded;
  const out: ConfigProblem[] = [];
  const place = (paths: readonly (readonly Segment[])[]): { line: number; col: number } => {
    for (const path of paths) {
      const found = index?.get(path);
      if (found) return found.key ?? found.value;
    }
    return { line: 1, col: 1 };
  };
  for (const upstream of Object.values(config.upstreams)) {
    for (const [key, tool] of Object.entries(upstream.tools)) {
      // Only a tool with a schema is served differently; one that says `shadow: true` already says so.
      if (tool.onInvalid !== 'passthrough' || tool.outputSchema === undefined || tool.shadow === true) continue;
      const entry = ['upstreams', upstream.name, 'tools', key];
      const pos = place([[...entry, 'onInvalid'], ['defaults', 'onInvalid'], entry]);
      out.push({ file: config.file, ...pos, message: passthroughWarning(entry) });
    }
  }
  const profiles = config.clients ?? [];
  if (profiles.some((p) => p.schemaDialect === '2020-12')) {
    for (const upstream of Object.values(config.upstreams)) {
      for (const [key, tool] of Object.entries(upstream.tools)) {
        for (const [field, profile, reason] of unrewritten(tool, config.defaults, profiles)) {
          const path = ['upstreams', upstream.name, 'tools', key, field];
          out.push({ file: config.file, ...place([path, path.slice(0, -1)]), message: dialectWarning(path, profile, reason) });
        }
      }
    }
  }
  return out.sort((a, b) => a.line - b.line || a.col - b.col);
}

/** The warnings of a loaded config, its file read again for positions (none when it cannot be read). */
export async function readConfigWarnings(loaded: LoadedConfig): Promise<ConfigProblem[]> {
  let index: PositionIndex | undefined;
  try {
    index = parseWithPositions(await readFile(loaded.config.file, 'utf8'), loaded.config.file).index;
  } catch {
    index = undefined;
  }
  return configWarnings(loaded, index);
}
