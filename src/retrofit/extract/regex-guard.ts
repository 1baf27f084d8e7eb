/**
 * Running a configured regex (or the YAML parser) against untrusted text without letting it stall the
 * gateway. Backtracking patterns can take exponential time on text chosen by an upstream (`(x+x+)+y` on 30
 * x's runs for seconds), no static check catches them all, and the yaml package is superlinear on some
 * inputs (20k `{` take a quarter second). So the work runs on a worker thread and the caller waits
 * for it synchronously, at most `REGEX_DEADLINE_MS`; past that the worker is terminated (and replaced on
 * the next call by a spare booted in advance) and the reading is refused with a reason. Texts over `REGEX_MAX_INPUT` characters are
 * refused before any work, which also bounds the copy to the worker.
 */
import { createRequire } from 'node:module';
import { MessageChannel, Worker, isMainThread, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { parse as parseYaml } from 'yaml';

/** How long one regex reading may run (ms). The event loop is blocked at most this long per call. */
export const REGEX_DEADLINE_MS = 100;
/** Longest text (UTF-16 code units) a regex reading accepts. */
export const REGEX_MAX_INPUT = 1024 * 1024;
/** Longest text a YAML reading accepts. */
export const YAML_MAX_INPUT = 1024 * 1024;
/** The yaml package, loaded by the worker from its absolute path (whatever the process's cwd). */
const YAML_PATH = createRequire(import.meta.url).resolve('yaml');
/** How long the worker may take to start (once per process, and after a deadline killed it). */
const BOOT_MS = 2_000;

/** Matches as plain data: the matched text and the named groups. */
export interface RegexMatch {
  readonly text: string;
  readonly groups?: Readonly<Record<string, string | undefined>>;
}

export type RegexRun = { readonly ok: true; readonly matches: readonly RegexMatch[] } | { readonly ok: false; readonly reason: string };

// Plain CommonJS, evaluated by the worker: no build step, no imports.
const WORKER = `
const { workerData } = require('node:worker_threads');
const { flag, port, yamlPath } = workerData;
// Loaded at boot: requiring it inside the first job would spend that job's deadline.
const YAML = require(yamlPath);
const signal = (v) => { Atomics.store(flag, 0, v); Atomics.notify(flag, 0); };
const plain = (m) => ({ text: m[0], groups: m.groups ? Object.assign({}, m.groups) : undefined });
const YAML_OPTIONS = { schema: 'core', maxAliasCount: 100, logLevel: 'error', uniqueKeys: false, customTags: [] };
port.on('message', ({ source, flags, text, all, yaml }) => {
  let out;
  if (yaml) {
    try { out = { ok: true, value: YAML.parse(text, YAML_OPTIONS) }; }
    catch (err) { out = { ok: false, reason: 'not YAML', invalid: true }; }
    port.postMessage(out);
    return signal(2);
  }
  try {
    const re = new RegExp(source, flags);
    if (all) out = { ok: true, matches: Array.from(text.matchAll(re), plain) };
    else { const m = re.exec(text); out = { ok: true, matches: m ? [plain(m)] : [] }; }
  } catch (err) {
    out = { ok: false, reason: 'the pattern failed: ' + String(err && err.message) };
  }
  port.postMessage(out);
  signal(2);
});
// Ready once the event loop runs (the port is listening), after one warm-up match.
setImmediate(() => { /x(?<g>y)/.exec('xy'); YAML.parse('a: 1', YAML_OPTIONS); signal(1); require('node:worker_threads').parentPort.postMessage('ready'); });
`;

interface Runner {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly flag: Int32Array;
  /** Set (on the event loop) once the worker said it is up: a fresh worker answers its first calls slowly. */
  ready: boolean;
}

let runner: Runner | undefined;
/** A second worker booted in advance, so a stopped match is not followed by a wait for a new worker. */
let spare: Runner | undefined;
/** Until a first match has completed, calls wait up to BOOT_MS; afterwards only within the deadline. */
let booted = false;

function boot(): Runner {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER, { eval: true, workerData: { flag, port: port2, yamlPath: YAML_PATH }, transferList: [port2] });
  // Never keep the process alive for the guard.
  worker.unref();
  port1.unref();
  const runner: Runner = { worker, port: port1, flag, ready: false };
  worker.once('message', () => {
    runner.ready = true;
    booted = true;
  });
  return runner;
}

/** Start the workers without waiting for them: they boot in the background (config load calls this). */
export function prepareRegexGuard(): void {
  runner ??= boot();
  spare ??= boot();
}

/** Resolves once the current worker is up (tests, and callers that want the first call fast). */
export function whenRegexGuardReady(): Promise<void> {
  prepareRegexGuard();
  const current = runner!;
  if (current.ready) return Promise.resolve();
  return new Promise((resolve) => current.worker.once('message', () => resolve()));
}

function stop(): void {
  if (!runner) return;
  void runner.worker.terminate();
  runner.port.close();
  runner = spare;
  spare = undefined;
  prepareRegexGuard();
}

/** A YAML reading: the parsed value, or why there is none (`invalid`: the text is not YAML). */
export type YamlRun = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly reason: string; readonly invalid?: boolean };

type Job = { readonly source: string; readonly flags: string; readonly text: string; readonly all: boolean } | { readonly yaml: true; readonly text: string };

/** Post `job` to the worker and wait for its answer, bounded (see the module comment). */
function run<T>(job: Job, what: string): T | { ok: false; reason: string } {
  prepareRegexGuard();
  const current = runner!;
  // The very first call may wait for the first worker to boot (once per process). Later, a worker still
  // booting (the spare, right after a stop) is waited for only within the deadline, else the reading is
  // refused; it keeps booting for the next call.
  const first = !booted;
  const budget = first ? BOOT_MS : REGEX_DEADLINE_MS;
  const deadline = performance.now() + budget;
  if (Atomics.load(current.flag, 0) === 0 && Atomics.wait(current.flag, 0, 0, budget) === 'timed-out') {
    if (first) stop();
    return { ok: false, reason: `the ${what} worker is still starting` };
  }
  Atomics.store(current.flag, 0, 1);
  current.port.postMessage(job);
  const left = Math.max(1, deadline - performance.now());
  if (Atomics.wait(current.flag, 0, 1, left) === 'timed-out') {
    stop();
    return { ok: false, reason: `the ${what} ran longer than ${REGEX_DEADLINE_MS} ms and was stopped` };
  }
  booted = true;
  const answer = receiveMessageOnPort(current.port)?.message as T | undefined;
  return answer ?? { ok: false, reason: `the ${what} worker gave no answer` };
}

/**
 * Run `regex` on `text` (every match when `all`, else the first), bounded in input and time: the event loop
 * waits at most REGEX_DEADLINE_MS per call (boot included), except for the very first worker's boot.
 * Never throws.
 */
export function runRegex(text: string, regex: RegExp, all: boolean): RegexRun {
  if (text.length > REGEX_MAX_INPUT) return { ok: false, reason: `the text is longer than ${REGEX_MAX_INPUT} characters, the limit for regex extraction` };
  // On a worker thread (the pipeline's isolation worker) the match runs here: that thread's deadline bounds it.
  if (!isMainThread) return matchHere(text, regex, all);
  return run<RegexRun>({ source: regex.source, flags: regex.flags, text, all }, 'pattern');
}

function matchHere(text: string, regex: RegExp, all: boolean): RegexRun {
  const plain = (m: RegExpExecArray): RegexMatch => ({ text: m[0], ...(m.groups && { groups: { ...m.groups } }) });
  try {
    const re = new RegExp(regex.source, regex.flags);
    if (all) return { ok: true, matches: Array.from(text.matchAll(re), plain) };
    const m = re.exec(text);
    return { ok: true, matches: m ? [plain(m)] : [] };
  } catch (err) {
    return { ok: false, reason: `the pattern failed: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** Parse `text` as YAML on the worker, bounded like runRegex. Never throws. */
export function runYaml(text: string): YamlRun {
  if (text.length > YAML_MAX_INPUT) return { ok: false, reason: `the text is longer than ${YAML_MAX_INPUT} characters, the limit for YAML extraction` };
  if (!isMainThread) {
    try {
      return { ok: true, value: parseYaml(text, { schema: 'core', maxAliasCount: 100, logLevel: 'error', uniqueKeys: false, customTags: [] }) as unknown };
    } catch {
      return { ok: false, reason: 'not YAML', invalid: true };
    }
  }
  return run<YamlRun>({ yaml: true, text }, 'YAML parse');
}
