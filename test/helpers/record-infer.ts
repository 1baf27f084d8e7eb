/**
 * From zero to typed, as an operator does it, for one upstream: a gateway with `record:` in front of it, a
 * scripted session through it (a real v1 SDK client), the gateway closed (its recorder flushes), the built
 * CLI's `infer` on the recordings, then again with the same calls made fresh as checks (`--from --call`: no
 * entry may be withdrawn), its `tools:` block pasted into a second config that `check` accepts, a gateway on
 * that config, and the same session through it with a v1 client (2025-11-25) and, on a fresh upstream state,
 * a v2 client (2026-07-28). Everything lives in a temp dir removed when the test ends.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { expect, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.js';
import type { JsonObject } from '../../src/json.js';
import { runCli } from './cli.js';
import { startGateway, type TestGateway } from './gateway.js';

/** One call of the scripted session. */
export interface ScriptedCall {
  readonly tool: string;
  readonly arguments?: Record<string, unknown>;
}

/** A tools/call result as the client returned it. */
export type CallResult = JsonObject & { readonly structuredContent?: unknown; readonly isError?: boolean; readonly content?: unknown };

/** What one session saw. */
export interface Session {
  /** tools/list as the client got it. */
  readonly tools: readonly JsonObject[];
  /** One result per scripted call, in order. */
  readonly results: readonly CallResult[];
}

/** One entry of the printed `tools:` block. */
export interface InferredEntry {
  readonly extract?: { readonly format: string };
  readonly outputSchema: JsonObject;
}

/** The whole walk, for the test to judge. */
export interface Walk {
  readonly dir: string;
  /** The session through the recording gateway. */
  readonly recorded: Session;
  /** `infer`'s entries by tool, and its stdout and stderr. */
  readonly inferred: Readonly<Record<string, InferredEntry>>;
  readonly inferOut: string;
  readonly inferErr: string;
  /** Files written per tool directory under the recording dir. */
  readonly files: Readonly<Record<string, number>>;
  /** `infer --from --call` with the scripted calls made fresh: stdout. */
  readonly freshOut: string;
  /** The same session through the gateway on the inferred config. */
  readonly typed: Session;
  /** …and with a v2 client at 2026-07-28, on a fresh upstream state. */
  readonly typedV2: Session;
  /** That gateway (its metrics and logs). */
  readonly gateway: TestGateway;
}

/** The scripted session through `url` with a real v1 client (it validates results against listed schemas). */
export async function runSession(url: string, calls: readonly ScriptedCall[]): Promise<Session> {
  const client = new Client({ name: 'scripted', version: '1.0.0' });
  onTestFinished(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const { tools } = await client.listTools();
  const results: CallResult[] = [];
  for (const call of calls) results.push((await client.callTool({ name: call.tool, arguments: call.arguments ?? {} })) as CallResult);
  await client.close();
  return { tools: tools as unknown as JsonObject[], results };
}

/** The same with a v2 client pinned to 2026-07-28 (it validates structuredContent against listed schemas too). */
export async function runSessionV2(url: string, calls: readonly ScriptedCall[]): Promise<Session> {
  const client = new V2Client({ name: 'scripted-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  onTestFinished(() => client.close());
  await client.connect(new V2Transport(new URL(url)));
  const { tools } = await client.listTools();
  const results: CallResult[] = [];
  for (const call of calls) results.push((await client.callTool({ name: call.tool, arguments: call.arguments ?? {} })) as unknown as CallResult);
  await client.close();
  return { tools: tools as unknown as JsonObject[], results };
}

async function files(root: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const tool of await readdir(root).catch(() => [])) out[tool] = (await readdir(join(root, tool))).filter((f) => f.endsWith('.json')).length;
  return out;
}

/**
 * The walk for upstream `name`, whose YAML keys (command, args, env…) `upstream(dir)` gives (JSON is YAML),
 * with `calls` as the session. `dir` is a new empty directory for each of the two gateways (a fresh state
 * file for a stateful server).
 */
export async function recordInferServe(name: string, upstream: (dir: string) => JsonObject, calls: readonly ScriptedCall[]): Promise<Walk> {
  const dir = await mkdtemp(join(tmpdir(), 'retrofit-walk-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  await Promise.all(['first', 'second', 'third'].map((d) => mkdir(join(dir, d))));
  const recording = join(dir, 'recording.yaml');
  await writeFile(recording, JSON.stringify({ upstreams: { [name]: { ...upstream(join(dir, 'first')), record: { dir: 'recordings', maxPerTool: 50 } } } }, null, 2));
  const first = await startGateway(await loadConfig(recording));
  const recorded = await runSession(first.url(`/${name}/mcp`), calls);
  // Closing the gateway closes its recorder, which writes what it still holds.
  await first.app.close();

  const infer = await runCli(['infer', '--config', recording]);
  expect(infer.stderr).toMatch(/^infer: \d+ tools?, \d+ with an entry, from \d+ results?\n$/);
  expect(infer.code).toBe(0);
  const inferred = (parse(infer.stdout) as { tools?: Record<string, InferredEntry> } | null)?.tools ?? {};

  // The same calls made now check what the recordings taught: none may withdraw an entry.
  const callsFile = join(dir, 'calls.json');
  await writeFile(callsFile, JSON.stringify(calls.map((c) => ({ tool: c.tool, arguments: c.arguments ?? {} }))));
  const fresh = await runCli(['infer', '--config', recording, '--from', join(dir, 'recordings'), '--call', callsFile]);
  expect(fresh.code).toBe(0);
  expect(fresh.stdout).not.toContain('fails a fresh call');
  expect((parse(fresh.stdout) as { tools?: Record<string, InferredEntry> } | null)?.tools ?? {}).toEqual(inferred);

  const typedConfig = async (state: string): Promise<string> => {
    const file = join(dir, `typed-${state}.yaml`);
    await writeFile(file, JSON.stringify({ upstreams: { [name]: { ...upstream(join(dir, state)), tools: inferred } } }, null, 2));
    return file;
  };
  const typedFile = await typedConfig('second');
  const check = await runCli(['check', '--config', typedFile]);
  expect({ code: check.code, stdout: check.stdout, stderr: check.stderr }).toEqual({ code: 0, stdout: 'ok\n', stderr: '' });
  const gateway = await startGateway(await loadConfig(typedFile));
  const typed = await runSession(gateway.url(`/${name}/mcp`), calls);
  const v2Gateway = await startGateway(await loadConfig(await typedConfig('third')));
  const typedV2 = await runSessionV2(v2Gateway.url(`/${name}/mcp`), calls);
  await v2Gateway.app.close();
  return { dir, recorded, inferred, inferOut: infer.stdout, inferErr: infer.stderr, freshOut: fresh.stdout, files: await files(join(dir, 'recordings', name)), typed, typedV2, gateway };
}

/**
 * What every walk must show: each tool that got an entry was listed with an outputSchema and answered
 * every successful call with structuredContent (the v1 client has validated it against that schema, or it
 * would have thrown), where the recorded session, through a gateway without schemas, got text alone.
 */
export function expectTyped(walk: Walk, calls: readonly ScriptedCall[], volatile: readonly string[] = []): void {
  const listed = new Map(walk.typed.tools.map((t) => [t.name as string, t]));
  const listedV2 = new Map(walk.typedV2.tools.map((t) => [t.name as string, t]));
  for (const tool of Object.keys(walk.inferred)) expect([tool, listed.get(tool)?.outputSchema !== undefined, listedV2.get(tool)?.outputSchema !== undefined]).toEqual([tool, true, true]);
  calls.forEach((call, i) => {
    if (!(call.tool in walk.inferred)) return;
    const before = walk.recorded.results[i]!;
    const after = walk.typed.results[i]!;
    if (before.isError === true) return;
    expect([call.tool, after.isError ?? false, after.structuredContent !== undefined]).toEqual([call.tool, false, true]);
    // The text is what the server said; the gateway only added structuredContent (`volatile` tools' texts
    // hold times or counters that differ between the two sessions).
    if (!volatile.includes(call.tool)) expect(after.content).toEqual(before.content);
    // The v2 client at 2026-07-28 (any root, unwrapped) got the same text and a value its validator accepted.
    const v2 = walk.typedV2.results[i]!;
    expect([call.tool, v2.isError ?? false, v2.structuredContent !== undefined]).toEqual([call.tool, false, true]);
    if (!volatile.includes(call.tool)) expect(v2.content).toEqual(before.content);
  });
}
