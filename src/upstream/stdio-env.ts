/**
 * The environment and working directory a stdio child gets, and the /readyz "spawnable" check.
 *
 * Children inherit only a small allowlist of the gateway's environment (the same list the MCP SDKs'
 * StdioClientTransport uses), plus the upstream's `env:`. The gateway's own secrets (bearer tokens,
 * `${VAR}` sources) are not leaked into third-party servers, and a server behaves the same behind the
 * gateway as when an MCP client spawns it directly.
 */
import { access, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import type { GatewayConfig, StdioUpstreamConfig } from '../config/types.js';

/** Variables inherited from the gateway's environment (as in the MCP SDKs' getDefaultEnvironment). */
export const INHERITED_ENV: readonly string[] =
  process.platform === 'win32'
    ? ['APPDATA', 'HOMEDRIVE', 'HOMEPATH', 'LOCALAPPDATA', 'PATH', 'PROCESSOR_ARCHITECTURE', 'SYSTEMDRIVE', 'SYSTEMROOT', 'TEMP', 'USERNAME', 'USERPROFILE', 'PROGRAMFILES']
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/** The child's environment: the inherited allowlist, then the upstream's `env:` on top. */
export function childEnv(upstream: StdioUpstreamConfig, parent: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of INHERITED_ENV) {
    const value = parent[key];
    // Shell functions exported by bash look like `() {…}`; passing them on is a known injection vector.
    if (value !== undefined && !value.startsWith('()')) env[key] = value;
  }
  return { ...env, ...upstream.env };
}

/** The child's working directory: `cwd:` (relative to the config file), else the config file's directory. */
export function childCwd(upstream: StdioUpstreamConfig, config: Pick<GatewayConfig, 'file'>): string {
  const base = dirname(config.file);
  return upstream.cwd === undefined ? base : resolve(base, upstream.cwd);
}

async function isExecutableFile(path: string): Promise<boolean> {
  try {
    if (!(await stat(path)).isFile()) return false;
    await access(path, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether `command` can be spawned: it resolves on the child's PATH (or, when it names a path, is an
 * executable file relative to `cwd`), and `cwd` is an existing directory. Returns a reason when not.
 */
export async function checkSpawnable(command: string, cwd: string, env: Readonly<Record<string, string>>): Promise<{ ok: boolean; detail?: string }> {
  try {
    if (!(await stat(cwd)).isDirectory()) return { ok: false, detail: `cwd ${cwd} is not a directory` };
  } catch {
    return { ok: false, detail: `cwd ${cwd} does not exist` };
  }
  if (command.includes('/') || command.includes('\\') || isAbsolute(command)) {
    const path = resolve(cwd, command);
    return (await isExecutableFile(path)) ? { ok: true } : { ok: false, detail: `command ${path} is not an executable file` };
  }
  const exts = process.platform === 'win32' ? (env.PATHEXT ?? '.EXE;.CMD;.BAT;.COM').split(';') : [''];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const ext of exts) if (await isExecutableFile(join(resolve(cwd, dir), command + ext))) return { ok: true };
  }
  return { ok: false, detail: `command "${command}" not found on PATH` };
}
