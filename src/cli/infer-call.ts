/**
 * `infer --call FILE`: the sample calls (a YAML or JSON list of `{tool, arguments}`), and calling them on an
 * upstream as an MCP client, the way `check --probe` connects (src/probe/transport.ts: Streamable HTTP,
 * legacy SSE, or the spawned command with the bridge's env allowlist and cwd). Results are taken as the
 * upstream sent them: `client.request` with a permissive schema, since the SDK's callTool would validate
 * them against a declared outputSchema.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { parse } from 'yaml';
import { z } from 'zod';
import type { GatewayConfig, UpstreamConfig } from '../config/types.js';
import { isJsonObject, type JsonObject } from '../json.js';
import { probeTransport } from '../probe/transport.js';
import { explain } from '../probe/run.js';

/** One call to make. */
export interface SampleCall {
  readonly tool: string;
  readonly arguments: JsonObject;
}

/** A result obtained, or why a call gave none. */
export interface CallOutcomes {
  readonly samples: readonly { readonly tool: string; readonly result: JsonObject; readonly source: string }[];
  readonly failures: readonly string[];
}

const KEYS = new Set(['tool', 'arguments']);
const AnyResult = z.looseObject({});

/** The calls in a file's text, or the first problem with them. */
export function parseCalls(text: string): SampleCall[] | string {
  let value: unknown;
  try {
    value = parse(text);
  } catch (err) {
    return `not YAML or JSON: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (!Array.isArray(value) || value.length === 0) return 'expected a non-empty list of {tool, arguments}';
  const calls: SampleCall[] = [];
  for (const [i, entry] of value.entries()) {
    const where = `call #${i + 1}`;
    if (!isJsonObject(entry) || typeof entry.tool !== 'string' || entry.tool === '') return `${where}: needs a "tool" name`;
    const unknown = Object.keys(entry).find((k) => !KEYS.has(k));
    if (unknown !== undefined) return `${where}: unknown key "${unknown}" (expected tool, arguments)`;
    const args = entry.arguments ?? {};
    if (!isJsonObject(args)) return `${where}: "arguments" must be an object`;
    calls.push({ tool: entry.tool, arguments: args });
  }
  return calls;
}

/**
 * Connects to `upstream`, makes every call in order (each under `timeoutMs`), closes. A call answered with
 * a JSON-RPC error is a failure line; not being able to connect at all throws.
 */
export async function callUpstream(upstream: UpstreamConfig, config: Pick<GatewayConfig, 'file' | 'secrets' | 'limits'>, calls: readonly SampleCall[], timeoutMs: number): Promise<CallOutcomes> {
  const probe = probeTransport(upstream, config);
  const client = new Client({ name: 'mcp-retrofit-infer', version: '0.1.0' });
  try {
    try {
      await client.connect(probe.transport, { timeout: timeoutMs });
    } catch (err) {
      const tail = probe.stderrTail();
      throw new Error(`upstream "${upstream.name}" (${probe.target}) is unreachable: ${explain(err)}${tail === '' ? '' : `; stderr: ${tail.split('\n').slice(-3).join(' | ')}`}`, { cause: err });
    }
    const samples: { tool: string; result: JsonObject; source: string }[] = [];
    const failures: string[] = [];
    for (const [i, call] of calls.entries()) {
      const source = `call #${i + 1} (${call.tool})`;
      try {
        const result = await client.request({ method: 'tools/call', params: { name: call.tool, arguments: call.arguments } }, AnyResult, { timeout: timeoutMs });
        // It came off the wire as JSON: a JSON object.
        samples.push({ tool: call.tool, result: result as JsonObject, source });
      } catch (err) {
        failures.push(`${source}: ${explain(err)}`);
      }
    }
    return { samples, failures };
  } finally {
    // Ends the session (HTTP) or the child (stdio).
    await client.close().catch(() => {});
  }
}
