/**
 * Warnings about a config that loads: settings that work, but not as their words suggest. `check` prints
 * them as `FILE:LINE:COL warning: …` after `ok` (they never fail it). Today one kind: `onInvalid:
 * passthrough` serves its tools in shadow mode (src/retrofit/engine.ts `inShadow`), because a result passed
 * through without the structuredContent an advertised schema promises makes strict clients throw.
 */
import { readFile } from 'node:fs/promises';
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
