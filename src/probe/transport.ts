/**
 * The v1 SDK client transport that reaches one configured upstream the way the gateway would: Streamable
 * HTTP for `url:`, legacy HTTP+SSE for `sse:`, a spawned child for `command:` (same env allowlist and cwd
 * as the stdio bridge). Used by `check --probe` only; serving goes through src/upstream/.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { GatewayConfig, UpstreamConfig } from '../config/types.js';
import { childCwd, childEnv } from '../upstream/stdio-env.js';

/** How many trailing stderr bytes of a stdio child are kept to explain why it failed. */
const STDERR_TAIL_BYTES = 2048;

/** A transport to one upstream, plus what its child said on stderr (stdio only) for error messages. */
export interface ProbeTransport {
  readonly transport: Transport;
  /** A one-line description of where the probe goes, e.g. `url http://host/mcp` or `command node`. */
  readonly target: string;
  /** The last lines a stdio child wrote to stderr (empty for HTTP upstreams). */
  stderrTail(): string;
}

/** Builds (does not start) the transport for `upstream`. */
export function probeTransport(upstream: UpstreamConfig, config: Pick<GatewayConfig, 'file'>): ProbeTransport {
  switch (upstream.kind) {
    case 'http':
      return {
        transport: new StreamableHTTPClientTransport(new URL(upstream.url), { requestInit: { headers: { ...upstream.headers } } }),
        target: `url ${upstream.url}`,
        stderrTail: () => '',
      };
    case 'sse':
      return {
        transport: new SSEClientTransport(new URL(upstream.sse), { requestInit: { headers: { ...upstream.headers } } }),
        target: `sse ${upstream.sse}`,
        stderrTail: () => '',
      };
    case 'stdio': {
      // Pipe stderr instead of inheriting it: a server's banner would interleave with the report.
      let tail = '';
      const transport = new StdioClientTransport({
        command: upstream.command,
        args: [...upstream.args],
        env: childEnv(upstream),
        cwd: childCwd(upstream, config),
        stderr: 'pipe',
      });
      // With 'pipe' the SDK hands out its stderr stream before start, so nothing early is lost.
      transport.stderr?.on('data', (chunk: Buffer) => {
        tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_BYTES);
      });
      return { transport, target: `command ${upstream.command}`, stderrTail: () => tail.trim() };
    }
  }
}
