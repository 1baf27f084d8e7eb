/**
 * Loads a config file: read → YAML with positions → `${VAR}` expansion (expand.ts) → validation against the
 * config JSON Schema (validate.ts) → path checks → schema files and the files they `$ref` (tool-schemas.ts)
 * → GatewayConfig with defaults (build.ts) → deep-freeze → one compiled policy per upstream
 * (src/policy/compile.ts). Every problem, from any stage and any upstream, is collected first and thrown as
 * one ConfigError, each at the FILE:LINE:COL it is about (inside a schema file when that is where the fault
 * is). An upstream with problems is still compiled from its usable parts (salvage.ts), so that one run
 * reports them all.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { compileUpstreamPolicy } from '../policy/compile.js';
import { createProfileMatcher, matchProblems, type ClientProfileConfig, type ProfileMatcher } from '../policy/clients.js';
import type { UpstreamPolicy } from '../retrofit/policy.js';
import { buildDefaults, buildGateway, buildUpstream, deepFreeze, obj } from './build.js';
import { expandString, type Env } from './expand.js';
import { SchemaFiles } from './files.js';
import { policyProblem } from './policy-errors.js';
import { parseWithPositions, PositionIndex } from './positions.js';
import { at, ConfigError, sortProblems, type ConfigProblem, type Segment } from './problems.js';
import { checkLimits } from './limits.js';
import { checkPaths } from './paths.js';
import { salvage } from './salvage.js';
import { clashError, idClashes } from './schema-ids.js';
import { ServedIds } from './served-ids.js';
import { loadToolSchemas } from './tool-schemas.js';
import type { GatewayConfig, UpstreamConfig } from './types.js';
import { validateShape } from './validate.js';

export { ConfigError, type ConfigProblem } from './problems.js';

/** What `loadConfig` returns: the frozen config and each upstream's compiled policy, by upstream name. */
export interface LoadedConfig {
  readonly config: GatewayConfig;
  readonly policies: ReadonlyMap<string, UpstreamPolicy>;
  /** The content each served outputSchema `$id` named, this generation's and earlier ones' (./served-ids.ts). */
  readonly servedIds?: ServedIds;
}

export interface LoadOptions {
  /** Variables for ${VAR} expansion; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether the operator console runs, so tools/call arguments are kept for its samples; default: the file's
   * `ui.enabled`. A reload passes the running one: the console is built at start, and `ui` is not reloaded.
   */
  readonly console?: boolean;
  /**
   * The ids the running generation served (a reload passes them): an outputSchema `$id` whose content changed
   * is served under a new id, since connected clients keep schemas by `$id` (./served-ids.ts).
   */
  readonly servedIds?: ServedIds;
  /** A reload (src/reload/reloader.ts): the file is read again, so it must be one that can be (no pipe). */
  readonly reload?: boolean;
}

/** Collected problems plus the config paths they concern (a dirty upstream is not built or compiled). */
class Problems {
  readonly list: ConfigProblem[] = [];
  readonly #paths: Segment[][] = [];

  add(problem: ConfigProblem, path: readonly Segment[]): void {
    this.list.push(problem);
    this.#paths.push([...path]);
  }

  /** True when some problem concerns `prefix` or anything under it. */
  touches(prefix: readonly Segment[]): boolean {
    return this.#paths.some((p) => prefix.every((seg, i) => String(p[i]) === String(seg)));
  }

  /** True when some problem concerns exactly `path`. */
  has(path: readonly Segment[]): boolean {
    return this.#paths.some((p) => p.length === path.length && path.every((seg, i) => String(p[i]) === String(seg)));
  }

  /**
   * True when a problem already explains one at `path`: one at `path` itself, or one in the same field of a
   * tool entry, above or below it (`extract` and `extract.pattern`). A problem at a whole upstream or tool
   * entry explains nothing inside it.
   */
  explains(path: readonly Segment[]): boolean {
    return this.#paths.some((p) => {
      const shared = Math.min(p.length, path.length);
      return (shared >= 5 || p.length === path.length) && p.slice(0, shared).every((seg, i) => String(path[i]) === String(seg));
    });
  }

  /** The paths of the problems so far. */
  get paths(): readonly (readonly Segment[])[] {
    return this.#paths;
  }
}

/** The largest config file read: far past any real config, short of what a device would be read to. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024;

/**
 * The config file's text. A regular file is read whole (at most MAX_CONFIG_BYTES); anything else (a pipe:
 * `--config <(…)`, a device) only at start, read to its end or MAX_CONFIG_BYTES: a reload would wait on a pipe
 * until something wrote to it, and every later reload behind it.
 */
async function readText(file: string, reload: boolean): Promise<string> {
  const refuse = (why: string): never => {
    throw new ConfigError([{ file, line: 1, col: 1, message: `cannot ${reload ? 'reload' : 'read'} config file (${why})` }]);
  };
  try {
    const info = await stat(file);
    if (info.isFile()) {
      if (info.size > MAX_CONFIG_BYTES) refuse(`larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB`);
      return await readFile(file, 'utf8');
    }
    if (info.isDirectory()) refuse('is a directory');
    if (reload) refuse('not a regular file: a pipe is read once, at start; serve a file to reload it');
    return await readBounded(file);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : code === 'EACCES' ? 'permission denied' : String(err);
    throw new ConfigError([{ file, line: 1, col: 1, message: `cannot read config file (${why})` }], { cause: err });
  }
}

/** A file that is not a regular one (a pipe), read to its end, or refused past MAX_CONFIG_BYTES. */
async function readBounded(file: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_CONFIG_BYTES) throw new ConfigError([{ file, line: 1, col: 1, message: `cannot read config file (larger than ${MAX_CONFIG_BYTES / 1024 / 1024} MiB)` }]);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** YAML → plain value with `${VAR}` expanded; records secrets and the numbers/booleans a plain scalar could be. */
function parseConfig(text: string, file: string, env: Env, problems: Problems) {
  const retypable = new Map<string, unknown>();
  const fromEnv = new Map<string, readonly string[]>();
  const parsed = parseWithPositions(text, file, (raw, path, scalar, pos) => {
    const x = expandString(raw, env);
    if (x.fromEnv.length > 0) fromEnv.set(PositionIndex.pointer(path), x.fromEnv);
    for (const m of x.problems) problems.add({ file, line: pos.line, col: pos.col, message: at(path, m) }, path);
    // An unquoted `port: ${PORT}` may stand for a number: remember what it would be, the schema decides.
    if (x.expanded && scalar.type === 'PLAIN' && x.value !== '') {
      const typed = safeScalar(x.value);
      if (typeof typed === 'number' || typeof typed === 'boolean') retypable.set(PositionIndex.pointer(path), typed);
    }
    return x.value;
  });
  return { ...parsed, retypable, fromEnv };
}

function safeScalar(text: string): unknown {
  try {
    return parseYaml(text);
  } catch {
    return undefined;
  }
}

function setAt(root: unknown, path: readonly Segment[], value: unknown): void {
  let node: unknown = root;
  for (const seg of path.slice(0, -1)) node = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[String(seg)] : undefined;
  const last = path.at(-1);
  if (last !== undefined && node !== null && typeof node === 'object') (node as Record<string, unknown>)[String(last)] = value;
}

/**
 * Loads, validates and compiles a config file. Throws ConfigError listing every problem (sorted by file,
 * line, column); the returned config is deep-frozen.
 */
export async function loadConfig(file: string, options: LoadOptions = {}): Promise<LoadedConfig> {
  const abs = resolve(file);
  const configDir = dirname(abs);
  const problems = new Problems();
  const secrets = new Set<string>();
  const parsed = parseConfig(await readText(abs, options.reload === true), abs, options.env ?? process.env, problems);
  if (parsed.problems.length > 0) throw new ConfigError(sortProblems([...parsed.problems, ...problems.list]));
  const { value, index } = parsed;
  if (value === null || value === undefined) {
    throw new ConfigError([{ file: abs, line: 1, col: 1, message: 'the config file is empty (it needs at least `upstreams:`)' }]);
  }

  let issues = validateShape(value);
  const retype = issues.filter((i) => i.keyword === 'type' && parsed.retypable.has(PositionIndex.pointer(i.path)));
  if (retype.length > 0) {
    for (const i of retype) {
      const pointer = PositionIndex.pointer(i.path);
      setAt(value, i.path, parsed.retypable.get(pointer));
      parsed.fromEnv.delete(pointer); // a port or a flag is no secret, and scrubbing "8080" from logs would hurt
    }
    issues = validateShape(value);
  }
  // The session id prefix is in every id the gateway hands its clients: no secret, and scrubbing it would
  // blank the session of every log line.
  parsed.fromEnv.delete('/sessionIdPrefix');
  for (const values of parsed.fromEnv.values()) for (const s of values) secrets.add(s);
  for (const issue of issues) {
    // An unset variable already explains whatever is wrong with the string it was in.
    if (issue.keyword !== 'additionalProperties' && problems.has(issue.path)) continue;
    problems.add(index.problem(issue.path, issue.anchor, issue.message, issue.prefix), issue.path);
  }
  // Only over values the schema accepted: a value already out of range needs no second message.
  const later = [...checkPaths(value, index), ...(problems.touches(['limits']) ? [] : checkLimits(value, index))];
  // A path the schema refused (reserved, malformed) needs no second message.
  for (const p of later) if (!problems.has(p.path)) problems.add(p.problem, p.path);

  const rawUpstreams = obj(obj(value).upstreams);
  const defaults = buildDefaults(problems.touches(['defaults']) ? undefined : obj(value).defaults);
  const fileIndexes = new Map<string, PositionIndex>();
  const servedIds = new ServedIds(options.servedIds);
  const schemaContext = { configDir, index, files: new SchemaFiles(), fileIndexes, report: (p: ConfigProblem, path: readonly Segment[]) => problems.add(p, path), ids: servedIds };
  const upstreams: Record<string, UpstreamConfig> = {};
  // Upstreams with problems are built too, from what is usable in them, and compiled only to find the
  // problems in their other parts in the same run; they are never served.
  const broken: UpstreamConfig[] = [];
  for (const [name, raw] of Object.entries(rawUpstreams)) {
    const path = ['upstreams', name];
    const dirty = problems.touches(path);
    const usable = dirty ? salvage(raw, path, problems.paths) : raw;
    const schemas = await loadToolSchemas(name, usable, schemaContext);
    const rawDefaults = problems.touches(['defaults']) ? undefined : obj(value).defaults;
    const built = buildUpstream(name, usable, { configDir, defaults, schemas, secrets: dirty ? new Set() : secrets, rawDefaults });
    if (dirty || problems.touches(path)) broken.push(built);
    else Object.defineProperty(upstreams, name, { value: built, enumerable: true });
  }
  const config = deepFreeze(buildGateway(abs, value, upstreams, secrets));

  // Checked even when the schema found problems in clients:, so one run reports them all; used only when clean.
  const schemaClean = !problems.touches(['clients']);
  const compiledClients = config.clients ? compileClients(config.clients, index, problems) : undefined;
  const profiles = schemaClean ? compiledClients : undefined;
  const policies = new Map<string, UpstreamPolicy>();
  for (const upstream of [...Object.values(config.upstreams), ...broken]) {
    const served = Object.hasOwn(config.upstreams, upstream.name);
    try {
      // With the console on, tools/call arguments are kept until the answer: its samples are scrubbed of them.
      const source = (options.console ?? config.ui?.enabled === true) ? { ...upstream, keepsArguments: true } : upstream;
      const { policy, errors } = compileUpstreamPolicy(source, config.defaults, profiles);
      for (const err of errors) if (served || !problems.explains(err.path)) problems.add(policyProblem(err, index, fileIndexes), err.path);
      if (served) policies.set(upstream.name, policy);
    } catch (err) {
      const path = ['upstreams', upstream.name];
      const message = `cannot compile tool policies: ${err instanceof Error ? err.message : String(err)}`;
      problems.add(index.problem(path, 'node', message), path);
    }
  }
  for (const upstream of [...Object.values(config.upstreams), ...broken]) {
    const served = Object.hasOwn(config.upstreams, upstream.name);
    const where = (path: readonly Segment[]): string => {
      const p = policyProblem({ path, message: '' }, index, fileIndexes);
      return `${p.file}:${p.line}:${p.col}`;
    };
    for (const clash of idClashes(upstream.name, upstream.tools, config.defaults)) {
      const err = clashError(clash, where);
      if (served || !problems.explains(err.path)) problems.add(policyProblem(err, index, fileIndexes), err.path);
    }
  }
  if (problems.list.length > 0) throw new ConfigError(sortProblems(problems.list));
  return { config, policies, servedIds };
}

/** `clients:` compiled into the matcher every policy of this generation shares; its globs, ranges and names checked. */
function compileClients(
  clients: readonly ClientProfileConfig[],
  index: PositionIndex,
  problems: { add(problem: ConfigProblem, path: readonly Segment[]): void },
): ProfileMatcher | undefined {
  const seen = new Set<string>();
  let ok = true;
  clients.forEach((entry, i) => {
    for (const [key, message] of matchProblems(entry.match)) {
      const path = ['clients', i, 'match', ...key.split('.').map((k) => (/^\d+$/.test(k) ? Number(k) : k))];
      problems.add(index.problem(path, 'value', message), path);
      ok = false;
    }
    if (seen.has(entry.name)) {
      const path = ['clients', i, 'name'];
      problems.add(index.problem(path, 'value', `profile "${entry.name}" is defined twice: the second would never match`), path);
      ok = false;
    }
    seen.add(entry.name);
  });
  return ok ? createProfileMatcher(clients) : undefined;
}
