/**
 * YAML → ${VAR} expansion → validation against the config JSON Schema → compile policies → freeze.
 * STUB until the config work lands: parses YAML with no validation.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { parse } from 'yaml';
import type { GatewayConfig } from './types.js';
import type { UpstreamPolicy } from '../policy/types.js';

/** One problem in a config file, reported as `FILE:LINE:COL message`. */
export interface ConfigProblem {
  readonly file: string;
  readonly line: number;
  readonly col: number;
  readonly message: string;
}

export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[]) {
    super(problems.map((p) => `${p.file}:${p.line}:${p.col} ${p.message}`).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export interface LoadedConfig {
  readonly config: GatewayConfig;
  readonly policies: ReadonlyMap<string, UpstreamPolicy>;
}

export interface LoadOptions {
  /** Variables for ${VAR} expansion; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export async function loadConfig(file: string, _options: LoadOptions = {}): Promise<LoadedConfig> {
  const abs = resolve(file);
  const raw: unknown = parse(await readFile(abs, 'utf8'));
  throw new ConfigError([{ file: abs, line: 1, col: 1, message: `config loader not implemented (${typeof raw})` }]);
}
