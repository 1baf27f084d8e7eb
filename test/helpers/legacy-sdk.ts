/**
 * The text-only fixture server on an old SDK release (test/fixtures/servers/legacy-sdk-server.mjs) as a real
 * child process: over Streamable HTTP or legacy HTTP+SSE on a free port, or its stdio command line for a
 * gateway's `command:` upstream. Stopped when the test ends.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { onTestFinished } from 'vitest';
import type { ToolConfig } from '../../src/config/types.js';

export const LEGACY_SDK_SERVER = fileURLToPath(new URL('../fixtures/servers/legacy-sdk-server.mjs', import.meta.url));

/** `sdk-1-10` answers initialize with 2024-11-05, `sdk-1-13` with 2025-06-18. */
export type LegacySdk = 'sdk-1-10' | 'sdk-1-13';

/** The schemas a user would configure for the fixture's tools. */
export const LEGACY_TOOLS: Record<string, ToolConfig> = {
  get_weather: {
    outputSchema: { type: 'object', properties: { city: { type: 'string' }, temperature: { type: 'integer' }, conditions: { type: 'string' } }, required: ['city', 'temperature', 'conditions'] },
  },
  get_temperature: { outputSchema: { type: 'integer' } },
  station_report: {
    outputSchema: { type: 'object', properties: { station: { type: 'string' }, status: { type: 'string' }, temperature_c: { type: 'integer' } }, required: ['station', 'status'] },
    extract: { format: 'yaml' },
  },
  get_humidity: { outputSchema: { type: 'number' } },
};

/** Start the fixture over HTTP (`http`: Streamable HTTP at /mcp; `sse`: GET /sse). */
export async function startLegacySdkServer(mode: 'http' | 'sse', sdk: LegacySdk = 'sdk-1-10'): Promise<{ url: string; close(): Promise<void> }> {
  const child = spawn(process.execPath, [LEGACY_SDK_SERVER, mode], { env: { ...process.env, SDK: sdk, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const [line] = (await once(lines, 'line')) as [string];
  const port = Number(/^listening (\d+)$/.exec(line)?.[1]);
  if (!port) throw new Error(`the legacy SDK server said "${line}"`);
  const close = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    await once(child, 'exit');
  };
  onTestFinished(close);
  return { url: mode === 'http' ? `http://127.0.0.1:${port}/mcp` : `http://127.0.0.1:${port}/sse`, close };
}
