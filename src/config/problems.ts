/**
 * Config problems: where (file, 1-based line and column) and what (one plain line). The loader collects
 * every problem before throwing one ConfigError, so `mcp-retrofit check` can list them all at once.
 */
import type { ErrorCode } from '../errors.js';

/** One problem in a config file (or a schema file it references), reported as `FILE:LINE:COL message`. */
export interface ConfigProblem {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

/** Thrown by `loadConfig` with every problem found, sorted by file, line and column. */
export class ConfigError extends Error {
  /** The registry code (src/errors.ts) for a config that cannot be loaded. */
  readonly code: ErrorCode = 'RETROFIT_ERR_CONFIG';
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[], options?: ErrorOptions) {
    super(problems.map(formatProblem).join('\n'), options);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** `FILE:LINE:COL message`. */
export function formatProblem(p: ConfigProblem): string {
  return `${p.file}:${p.line}:${p.col} ${p.message}`;
}

/** Sorted by file, then line, then column; exact duplicates removed. */
export function sortProblems(problems: readonly ConfigProblem[]): ConfigProblem[] {
  const seen = new Set<string>();
  const unique = problems.filter((p) => {
    const key = formatProblem(p);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return unique.sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line || a.col - b.col,
  );
}

/** A config path segment: an object key or an array index. */
export type Segment = string | number;

/** `upstreams.weather.tools["get.weather"]` — how messages name a place in the config. */
export function dottedPath(path: readonly Segment[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** Prefixes a message with the dotted path it is about (nothing at the root). */
export function at(path: readonly Segment[], message: string): string {
  const where = dottedPath(path);
  return where === '' ? message : `${where}: ${message}`;
}
