/**
 * `record:` in `defaults` and per upstream → each upstream's RecordConfig. The upstream's keys override the
 * defaults' one by one (so `record: {maxPerTool: 0}` turns one upstream off, and `record: {dir: x}` alone
 * turns one on); `dir` is resolved against the config file's directory. The schema guarantees a `dir`
 * somewhere whenever an upstream sets `record`.
 */
import { resolve } from 'node:path';
import { DEFAULTS, type RecordConfig, type UpstreamConfig } from './types.js';

type Obj = Record<string, unknown>;

const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);

/** The merged settings, or undefined when recording is off (no `record` anywhere, no dir, or maxPerTool 0). */
export function buildRecord(defaultsRaw: unknown, upstreamRaw: unknown, configDir: string): RecordConfig | undefined {
  const base = obj(defaultsRaw);
  const own = obj(upstreamRaw);
  if (base === undefined && own === undefined) return undefined;
  const pick = (key: string): unknown => (own !== undefined && key in own ? own[key] : base?.[key]);
  const dir = pick('dir');
  const maxPerTool = int(pick('maxPerTool')) ?? DEFAULTS.recordMaxPerTool;
  if (typeof dir !== 'string' || dir === '' || maxPerTool <= 0) return undefined;
  const names = pick('secretNames');
  const secretNames = Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string') : [];
  return { dir: resolve(configDir, dir), maxPerTool, maxBytes: int(pick('maxBytes')) ?? DEFAULTS.recordMaxBytes, ...(secretNames.length > 0 && { secretNames }) };
}

/** The upstreams with `record` set from the raw config root (the others returned as they are). */
export function withRecords(upstreams: Record<string, UpstreamConfig>, root: Obj, configDir: string): Record<string, UpstreamConfig> {
  const defaultsRaw = obj(root.defaults)?.record;
  const raws = obj(root.upstreams) ?? {};
  const out: Record<string, UpstreamConfig> = {};
  for (const [name, upstream] of Object.entries(upstreams)) {
    const record = buildRecord(defaultsRaw, Object.hasOwn(raws, name) ? obj(raws[name])?.record : undefined, configDir);
    // defineProperty: an upstream may be called `__proto__`.
    Object.defineProperty(out, name, { value: record ? { ...upstream, record } : upstream, enumerable: true });
  }
  return out;
}
