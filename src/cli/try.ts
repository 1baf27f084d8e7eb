/**
 * `mcp-retrofit try --config FILE --upstream NAME --tool TOOL (--text-file F | --result-file F)
 * [--protocol VERSION] [--client NAME[@VERSION]]`: run one tool's retrofit offline, exactly as the gateway would,
 * and print the CallToolResult a client on VERSION (a known revision, default 2025-11-25) receives — with
 * `--client`, a client whose clientInfo says NAME (and VERSION), shaped by the profile (`clients:`) it matches. Reasons for a failure go
 * to stderr. Exit 0 when structuredContent was produced (or upstream structuredContent validated), 1
 * otherwise, 2 on usage errors.
 */
import { readFile } from 'node:fs/promises';
import type { CliIo } from './io.js';
import { ConfigError, loadConfig } from '../config/load.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { REVISIONS } from '../protocol/era.js';
import { isShadowEntry, rewriteToolCall } from '../retrofit/engine.js';
import { delivered, retrofitMode } from '../pipeline/mode.js';
import { parseJson } from '../retrofit/safe-json.js';
import { parseOptions, runCommand, UsageError } from './options.js';
import { usageOf } from './usage.js';

const USAGE = usageOf('try');
const DEFAULT_PROTOCOL = '2025-11-25';
const OPTIONS = ['config', 'upstream', 'tool', 'text-file', 'result-file', 'protocol', 'client'] as const;

/** `NAME[@VERSION]`: the version is what follows the last `@` when it starts with a digit (`@scope/x` is a name). */
export function parseClient(text: string): { name: string; version?: string } {
  const at = text.lastIndexOf('@');
  if (at > 0 && /^\d/.test(text.slice(at + 1))) return { name: text.slice(0, at), version: text.slice(at + 1) };
  return { name: text };
}

/** A CallToolResult, or a whole JSON-RPC response carrying one. */
async function readResult(file: string): Promise<JsonObject> {
  const parsed = parseJson(await readFile(file, 'utf8'));
  if (!parsed.ok || !isJsonObject(parsed.value)) throw new UsageError(`${file}: not a JSON object`);
  const value = parsed.value;
  return value.jsonrpc === '2.0' && isJsonObject(value.result) ? value.result : value;
}

async function execute(args: readonly string[], io: CliIo): Promise<number> {
  const opts = parseOptions(args, OPTIONS);
  const { config, upstream, tool } = opts;
  if (config === undefined || upstream === undefined || tool === undefined) throw new UsageError('--config, --upstream and --tool are required');
  if ((opts['text-file'] === undefined) === (opts['result-file'] === undefined)) throw new UsageError('give exactly one of --text-file and --result-file');
  const protocol = opts.protocol ?? DEFAULT_PROTOCOL;
  // A date the gateway does not know would be projected as some era silently: name the ones it knows.
  if (!(REVISIONS as readonly string[]).includes(protocol)) throw new UsageError(`--protocol must be one of ${REVISIONS.join(', ')} (got "${protocol}")`);

  let loaded;
  try {
    loaded = await loadConfig(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    io.stderr.write(`${err.message}\n`);
    return 1;
  }
  const policy = loaded.policies.get(upstream);
  if (!policy) throw new UsageError(`no upstream "${upstream}" in ${config} (known: ${[...loaded.policies.keys()].join(', ')})`);

  const input: JsonObject = opts['text-file'] !== undefined
    ? { content: [{ type: 'text', text: await readFile(opts['text-file'], 'utf8') }] }
    : await readResult(opts['result-file']!);

  const client = opts.client === undefined ? undefined : parseClient(opts.client);
  const profile = client && policy.profiles?.match({ ...client, revision: protocol });
  if (client) io.stderr.write(profile ? `try: client ${JSON.stringify(opts.client)} gets profile "${profile.name}"\n` : `try: client ${JSON.stringify(opts.client)} matches no profile (or one that changes nothing)\n`);
  const entry = policy.resolve(tool);
  const { result: out, outcome } = rewriteToolCall(input, tool, policy, protocol, profile);
  // What the client gets, decided as the gateway decides it (a client shown no schema never gets a failure).
  const mode = retrofitMode(policy, entry, protocol, profile);
  const result = delivered(policy, tool, input, out, outcome, mode, protocol, profile);
  io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  if (!entry?.compiled?.output) io.stderr.write(`try: no outputSchema is configured for tool "${tool}" of upstream "${upstream}"\n`);
  // Worth knowing before serving: this tool's extraction runs off the event loop, under a deadline.
  const isolate = entry?.compiled?.isolate;
  if (isolate !== undefined) io.stderr.write(`try: note: ${isolate}; the gateway runs this tool's extraction on its isolation worker, under a deadline\n`);
  // The result printed is what a client gets; the outcome is what the retrofit found, which it does not get.
  if (mode === 'unseen') io.stderr.write(`try: note: this client is shown no outputSchema for tool "${tool}" (its revision, a dropped non-object root, or its profile): it gets the result printed above, never a failed reading's isError; the outcome below is what the retrofit found\n`);
  if (entry && isShadowEntry(policy, entry)) io.stderr.write(`try: note: tool "${tool}" is served in shadow mode: clients get the upstream's result unchanged (printed above); the outcome below is what the retrofit found\n`);
  const format = outcome.format !== undefined ? ` (${outcome.format})` : '';
  io.stderr.write(`try: ${outcome.outcome}${format}\n`);
  for (const reason of outcome.reasons ?? []) io.stderr.write(`  ${reason}\n`);
  return outcome.outcome === 'extracted' || outcome.outcome === 'native' ? 0 : 1;
}

export function run(args: readonly string[], io: CliIo): Promise<number> {
  return runCommand('try', USAGE, args, io, () => execute(args, io));
}
