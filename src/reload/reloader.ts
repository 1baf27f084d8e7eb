/**
 * Reloading the config file while serving: load it with the same loader as at start; if it is valid, merge
 * it into the running generation (src/reload/merge.ts) and swap; if not, keep serving the running one and
 * log every problem as `FILE:LINE:COL message`. Reloads never overlap: a request for one while another runs
 * is folded into a single follow-up reload (the file may have changed again meanwhile).
 */
import { EventEmitter } from 'node:events';
import { ConfigError, loadConfig, type LoadedConfig, type LoadOptions } from '../config/load.js';
import { formatProblem } from '../config/problems.js';
import type { Logger, Redactor } from '../log.js';
import type { Metrics } from '../metrics.js';
import type { Generations } from '../config/generations.js';
import { mergeReload } from './merge.js';

/** What one reload did. */
export type ReloadResult =
  | { readonly ok: true; readonly generation: number; readonly restartRequired: readonly string[]; readonly toolsChanged: readonly string[] }
  | { readonly ok: false; readonly problems: readonly string[] };

/** Collaborators of the reloader. */
export interface ReloaderOptions {
  /** The config file (as given on the command line). */
  readonly file: string;
  readonly generations: Generations;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Gets the new generation's secrets, so they are scrubbed from logs before anything can log them. */
  readonly redactor?: Redactor;
  /** The loader; tests may pass one with a fixed env. Defaults to loadConfig(file, options). */
  readonly load?: (file: string, options: LoadOptions) => Promise<LoadedConfig>;
}

/** Emits `reload` with (ReloadResult, trigger) after every attempt. */
export class Reloader extends EventEmitter<{ reload: [ReloadResult, string] }> {
  readonly #options: ReloaderOptions;
  #running: Promise<ReloadResult> | undefined;
  #queued: Promise<ReloadResult> | undefined;

  constructor(options: ReloaderOptions) {
    super();
    this.#options = options;
  }

  /** Reload now (or right after the one running); `trigger` is logged (SIGHUP, watch, …). */
  reload(trigger: string): Promise<ReloadResult> {
    if (!this.#running) {
      this.#running = this.#attempt(trigger).finally(() => (this.#running = undefined));
      return this.#running;
    }
    // One follow-up covers every request made while a reload runs.
    this.#queued ??= this.#running.then(() => {
      this.#queued = undefined;
      return this.reload(trigger);
    });
    return this.#queued;
  }

  async #attempt(trigger: string): Promise<ReloadResult> {
    const { file, generations, logger, metrics, redactor } = this.#options;
    const load = this.#options.load ?? loadConfig;
    let result: ReloadResult;
    try {
      // Compiled for the console that runs (its samples keep arguments), whatever the new file's `ui` says.
      // With the ids the running generation serves: a schema changed under its $id gets a new one.
      const { servedIds } = generations.current;
      const loaded = await load(file, { console: generations.current.config.ui?.enabled === true, reload: true, ...(servedIds && { servedIds }) });
      redactor?.add(loaded.config.secrets);
      const merged = mergeReload(generations.current, loaded);
      generations.swap(merged.loaded, merged.toolsChanged);
      result = { ok: true, generation: generations.number, restartRequired: merged.restartRequired, toolsChanged: merged.toolsChanged };
      metrics.reloads.inc({ result: 'ok' });
      logger.info({ trigger, generation: result.generation, toolsChanged: merged.toolsChanged }, 'config reloaded');
      for (const what of merged.restartRequired) logger.warn({ trigger, file }, `config reload: ${what}; requires restart`);
    } catch (err) {
      const problems = err instanceof ConfigError ? err.problems.map(formatProblem) : [`${file}:1:1 ${err instanceof Error ? err.message : String(err)}`];
      result = { ok: false, problems };
      metrics.reloads.inc({ result: 'failed' });
      // One line per problem, each with its position, then a summary: the running config stays.
      for (const problem of problems) logger.error({ trigger, problem }, `config reload rejected: ${problem}`);
      logger.error({ trigger, problems: problems.length, generation: generations.number }, 'config reload failed; still serving the previous config');
    }
    this.emit('reload', result, trigger);
    return result;
  }
}
