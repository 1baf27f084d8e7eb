/**
 * Running a configured regex that RE2 cannot run (lookaround, backreferences: see pattern.ts), or the YAML
 * parser, against untrusted text without letting it stall the gateway for long. Backtracking patterns can
 * take exponential time on text chosen by an upstream (`(x+x+)+y(?=$)` on 30 x's runs for seconds), and the
 * yaml package is superlinear on some inputs (20k `{` take a quarter second). So the work runs on a worker
 * thread and the caller waits for it synchronously, at most `REGEX_DEADLINE_MS`; past that the worker is
 * terminated (and replaced on the next call by a spare booted in advance) and the reading is refused with a
 * reason. Texts over `REGEX_MAX_INPUT` characters are refused before any work, which also bounds the copy.
 * This still blocks the event loop (up to the deadline): it is for now. Tools that use it carry
 * `CompiledTool.isolate`, so the pipeline can run their retrofits on a worker with a deadline instead, and
 * then this module goes; patterns RE2 can run (most) never come here.
 */
import { createRequire } from 'node:module';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { YAML_OPTIONS, type YamlTreeRun } from './yaml-tree.js';

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

// Plain CommonJS, evaluated by the worker: no build step, no imports. The YAML walk is yaml-tree.ts's
// `convert`, repeated here (test/unit/retrofit/extract/yaml-tree.test.ts holds the two equal).
const WORKER = `
const { workerData } = require('node:worker_threads');
const { flag, port, yamlPath } = workerData;
// Loaded at boot: requiring it inside the first job would spend that job's deadline.
const YAML = require(yamlPath);
const signal = (v) => { Atomics.store(flag, 0, v); Atomics.notify(flag, 0); };
const plain = (m) => ({ text: m[0], groups: m.groups ? Object.assign({}, m.groups) : undefined });
const YAML_OPTIONS = ${JSON.stringify(YAML_OPTIONS)};
const convert = (n) => {
  if (n === null || n === undefined) return { k: 'scalar', v: null, src: '', quoted: false };
  if (YAML.isAlias(n)) return { k: 'alias', ref: n.source };
  let out;
  if (YAML.isMap(n)) out = { k: 'map', pairs: n.items.map((p) => [convert(p.key), convert(p.value)]) };
  else if (YAML.isSeq(n)) out = { k: 'seq', items: n.items.map((it) => YAML.isPair(it) ? { k: 'map', pairs: [[convert(it.key), convert(it.value)]] } : convert(it)) };
  else if (YAML.isScalar(n)) {
    const v = n.value;
    const value = typeof v === 'bigint' ? String(v) : typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : null;
    out = { k: 'scalar', v: value, src: n.source ?? String(v), quoted: n.type !== undefined && n.type !== 'PLAIN' };
  } else out = { k: 'scalar', v: null, src: '', quoted: false };
  if (typeof n.anchor === 'string') out.a = n.anchor;
  return out;
};
const yamlTree = (text) => {
  try {
    const doc = YAML.parseDocument(text, YAML_OPTIONS);
    if (doc.errors.length > 0) return { ok: false, reason: 'not YAML', invalid: true };
    return { ok: true, tree: convert(doc.contents) };
  } catch (err) {
    if (err instanceof RangeError) return { ok: false, reason: 'the YAML nests too deeply to read' };
    return { ok: false, reason: 'not YAML', invalid: true };
  }
};
port.on('message', ({ source, flags, text, texts, all, yaml }) => {
  let out;
  if (yaml) {
    port.postMessage(yamlTree(text));
    return signal(2);
  }
  try {
    const re = new RegExp(source, flags);
    if (texts) out = { ok: true, matches: texts.map((t) => { re.lastIndex = 0; const m = re.exec(t); return m ? plain(m) : undefined; }) };
    else if (all) out = { ok: true, matches: Array.from(text.matchAll(re), plain) };
    else { const m = re.exec(text); out = { ok: true, matches: m ? [plain(m)] : [] }; }
  } catch (err) {
    out = { ok: false, reason: 'the pattern failed: ' + String(err && err.message) };
  }
  port.postMessage(out);
  signal(2);
});
// Ready once the event loop runs (the port is listening), after one warm-up match.
setImmediate(() => { /x(?<g>y)/.exec('xy'); yamlTree('a: 1'); signal(1); require('node:worker_threads').parentPort.postMessage('ready'); });
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

type Job =
  | { readonly source: string; readonly flags: string; readonly text: string; readonly all: boolean }
  | { readonly source: string; readonly flags: string; readonly texts: readonly string[] }
  | { readonly yaml: true; readonly text: string };

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
  return run<RegexRun>({ source: regex.source, flags: regex.flags, text, all }, 'pattern');
}

/** The first match of `regex` in each text (undefined where none), in one bounded call. Never throws. */
export function runRegexEach(texts: readonly string[], regex: RegExp): { ok: true; matches: (RegexMatch | undefined)[] } | { ok: false; reason: string } {
  return run<{ ok: true; matches: (RegexMatch | undefined)[] }>({ source: regex.source, flags: regex.flags.replace('g', ''), texts }, 'pattern');
}

/** Parse `text` into a YamlNode tree (yaml-tree.ts) on the worker, bounded like runRegex. Never throws. */
export function runYaml(text: string): YamlTreeRun {
  if (text.length > YAML_MAX_INPUT) return { ok: false, reason: `the text is longer than ${YAML_MAX_INPUT} characters, the limit for YAML extraction` };
  return run<YamlTreeRun>({ yaml: true, text }, 'YAML parse');
}
