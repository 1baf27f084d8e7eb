/**
 * `serve --watch`: call back when the config file changes, debounced (editors write in several steps).
 *
 * The directory is watched, not the file: editors and Kubernetes replace files (rename, or the ConfigMap's
 * `..data` symlink swap), which ends a watch on the old inode. Events for other files in the directory are
 * ignored. Schema files referenced by the config are not watched; SIGHUP reloads them.
 */
import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Logger } from '../log.js';

/** Default quiet period after the last change before reloading (ms). */
export const WATCH_DEBOUNCE_MS = 250;

export interface ConfigWatch {
  close(): void;
}

/** True for a change notice (filename) that may concern the config file `name`. */
export function concernsConfig(filename: string | null, name: string): boolean {
  // Some platforms give no filename; a ConfigMap update touches `..data` / `..data_tmp` / `..<timestamp>`.
  return filename === null || filename === name || filename.startsWith('..');
}

export function watchConfig(file: string, onChange: () => void, log: Logger, debounceMs = WATCH_DEBOUNCE_MS): ConfigWatch {
  const abs = resolve(file);
  const name = basename(abs);
  let timer: NodeJS.Timeout | undefined;
  let watcher: FSWatcher | undefined;
  try {
    watcher = watch(dirname(abs), { persistent: false }, (_event, filename) => {
      if (!concernsConfig(filename === null ? null : String(filename), name)) return;
      clearTimeout(timer);
      timer = setTimeout(onChange, debounceMs);
    });
    watcher.on('error', (err) => log.warn({ err, file: abs }, 'config watch failed; SIGHUP still reloads'));
    log.info({ file: abs, debounceMs }, 'watching the config file for changes');
  } catch (err) {
    log.warn({ err, file: abs }, 'cannot watch the config file; SIGHUP still reloads');
  }
  return {
    close() {
      clearTimeout(timer);
      watcher?.close();
    },
  };
}
