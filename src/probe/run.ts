/**
 * `check --probe` after the config checks: every upstream is probed at once (each under its own deadline),
 * and reported in file order. stdout gets, per upstream, a header and one line per tool; stderr gets a
 * `FILE:LINE:COL warning: …` per `tools:` key that governs no listed tool and one line per upstream that
 * could not be listed. Exit code 1 when any upstream did not answer, else 0 (warnings do not fail).
 */
import { readFile } from 'node:fs/promises';
import { eraOf, FIRST_STRUCTURED_REVISION, LATEST_STATEFUL_REVISION, STATEFUL_REVISIONS } from '../protocol/era.js';
import { MODERN_REVISION } from '../protocol/modern.js';
import { negotiate } from '../protocol/negotiate.js';
import type { LoadedConfig } from '../config/load.js';
import { parseWithPositions, type PositionIndex } from '../config/positions.js';
import { formatProblem } from '../config/problems.js';
import type { UpstreamConfig } from '../config/types.js';
import { Redactor } from '../log.js';
import { unmatchedKeyWarning } from '../config/warnings.js';
import { listUpstreamTools, type ListedTools } from './list-tools.js';
import { reportUpstream } from './report.js';

/** Where the report goes (the CLI passes its stdout and stderr). */
export interface ProbeOutput {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
}

/** The default cap on each upstream's probe, in ms. */
export const DEFAULT_PROBE_TIMEOUT_MS = 15_000;

/** Settings for a probe run. */
export interface ProbeOptions {
  /**
   * Deadline per upstream (connect or spawn, initialize, every tools/list page), in ms. Default: the
   * upstream's `timeoutMs`, capped at DEFAULT_PROBE_TIMEOUT_MS so a check never hangs for a minute.
   */
  readonly timeoutMs?: number;
  /** How the config file is shown in warnings (the check command shows it relative to the cwd). */
  readonly shownFile?: (file: string) => string;
}

/** `err.message: cause.message: …`, each distinct message once (undici nests `fetch failed` → ECONNREFUSED). */
export function explain(err: unknown): string {
  const messages: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 6; depth++) {
    const message = e instanceof Error ? e.message : String(e);
    if (message !== '' && !messages.some((m) => m.includes(message))) messages.push(message);
    e = e instanceof Error ? e.cause : undefined;
  }
  return messages.join(': ');
}

/** Positions of the config's keys, for warnings; none when the file cannot be read again. */
async function positions(file: string): Promise<PositionIndex | undefined> {
  try {
    return parseWithPositions(await readFile(file, 'utf8'), file).index;
  } catch {
    return undefined;
  }
}

/** What a client of the newest stateful revision is answered over this upstream (src/protocol/negotiate.ts). */
function bridging(upstream: UpstreamConfig, revision: string | undefined): string {
  if (revision === undefined) return '';
  const n = negotiate(LATEST_STATEFUL_REVISION, revision, upstream.bridge);
  if (n.bridged && eraOf(revision) === 'none') return `, revision ${revision}: clients asking for ${FIRST_STRUCTURED_REVISION} or later are bridged`;
  if (eraOf(revision) === 'none') return `, revision ${revision}: not bridged (bridge: false), clients get no structured output`;
  return `, revision ${revision}`;
}

/**
 * The revisions a client is served at through the gateway, and how: each session revision as negotiated
 * (bridged up, or the upstream's own), 2026-07-28 on pooled sessions (or by a url upstream itself).
 */
export function servedRevisions(upstream: UpstreamConfig, revision: string | undefined): string {
  const parts: string[] = [];
  const pooled = `pooled sessions, up to ${upstream.stateless.poolSize}`;
  if (!upstream.stateless.serve || !upstream.bridge) parts.push(upstream.kind === 'http' ? `${MODERN_REVISION} (only if the upstream serves it)` : `${MODERN_REVISION}: no (stateless.serve or bridge false)`);
  else parts.push(upstream.kind === 'http' ? `${MODERN_REVISION} (by the upstream if it answers server/discover, else on ${pooled})` : `${MODERN_REVISION} (on ${pooled})`);
  for (const asked of STATEFUL_REVISIONS) {
    if (revision === undefined) {
      parts.push(asked);
      continue;
    }
    // A server answers a revision it has as asked, a newer one with its own (the probe saw its newest).
    if (asked <= revision) {
      parts.push(asked);
      continue;
    }
    const n = negotiate(asked, revision, upstream.bridge);
    parts.push(n.bridged ? `${asked} (bridged)` : `${asked} → ${revision}`);
  }
  return `  served at: ${parts.join(', ')}`;
}

function header(upstream: UpstreamConfig, listed: ListedTools): string {
  const count = `${listed.tools.length} tool${listed.tools.length === 1 ? '' : 's'}`;
  const pages = listed.pages > 1 ? ` in ${listed.pages} pages` : '';
  const server = listed.server ? `, server ${listed.server.name} ${listed.server.version}` : '';
  return `${upstream.name}: ${count}${pages} (${upstream.kind}${server}${bridging(upstream, listed.revision)})`;
}

/** Probes every upstream of a loaded config and prints the report; returns the exit code. */
export async function probeUpstreams(loaded: LoadedConfig, io: ProbeOutput, options: ProbeOptions): Promise<number> {
  const { config, policies } = loaded;
  const upstreams = Object.values(config.upstreams);
  // Started together so the total wait is the slowest upstream, not the sum.
  const started = upstreams.map((u) => {
    const timeoutMs = options.timeoutMs ?? Math.min(u.timeoutMs, DEFAULT_PROBE_TIMEOUT_MS);
    return listUpstreamTools(u, config, { timeoutMs }).then(
      (listed) => ({ listed }),
      (error: unknown) => ({ error }),
    );
  });
  const index = await positions(config.file);
  const file = options.shownFile ? options.shownFile(config.file) : config.file;
  // A `${VAR}` token in a url (or echoed by a child on stderr) must not end up in a terminal or CI log.
  const redactor = new Redactor(config.secrets);
  const stdout = (line: string): void => void io.stdout.write(`${redactor.scrub(line)}\n`);
  const stderr = (line: string): void => void io.stderr.write(`${redactor.scrub(line)}\n`);
  let failed = 0;
  for (const [i, upstream] of upstreams.entries()) {
    const outcome = await started[i];
    if (outcome === undefined) continue;
    if ('error' in outcome) {
      failed++;
      stderr(`probe: ${explain(outcome.error)}`);
      continue;
    }
    const policy = policies.get(upstream.name);
    if (!policy) continue;
    stdout(header(upstream, outcome.listed));
    stdout(servedRevisions(upstream, outcome.listed.revision));
    const report = reportUpstream(outcome.listed.tools, policy, Object.keys(upstream.tools), config.file);
    for (const line of report.lines) stdout(line);
    const { malformed } = outcome.listed;
    if (malformed > 0) stderr(`probe: warning: ${upstream.name}: ${malformed} tools/list ${malformed === 1 ? 'entry without a string name was' : 'entries without a string name were'} skipped`);
    for (const w of report.warnings) {
      const path = ['upstreams', upstream.name, 'tools', w.key];
      const pos = index?.locate(path, 'key') ?? { line: 1, col: 1 };
      stderr(formatProblem({ file, line: pos.line, col: pos.col, message: `warning: ${unmatchedKeyWarning(upstream.name, w)}` }));
    }
  }
  const answered = upstreams.length - failed;
  const summary = `probe: ${answered} of ${upstreams.length} upstream${upstreams.length === 1 ? '' : 's'} answered`;
  (failed > 0 ? stderr : stdout)(summary);
  return failed > 0 ? 1 : 0;
}
