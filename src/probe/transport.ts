/**
 * The v1 SDK client transport that reaches one configured upstream the way the gateway would: Streamable
 * HTTP for `url:`, legacy HTTP+SSE for `sse:`, a spawned child for `command:` (same env allowlist and cwd
 * as the stdio bridge, in a process group of its own). Used by `check --probe` only; serving goes through
 * src/upstream/.
 */
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { GatewayConfig, UpstreamConfig } from '../config/types.js';
import { Redactor } from '../log.js';
import { withoutCredentials } from '../url-credentials.js';
import type { GroupExit } from '../upstream/spawn.js';
import { childCwd, childEnv } from '../upstream/stdio-env.js';
import { probeFetch } from './fetch.js';
import { GroupStdioTransport } from './stdio-transport.js';

/** Time a probed child gets between SIGTERM and SIGKILL (the SDK's own transport waits 2 s too). */
export const PROBE_KILL_GRACE_MS = 2_000;

/** A transport to one upstream, plus what its child said on stderr (stdio only) for error messages. */
export interface ProbeTransport {
  readonly transport: Transport;
  /** A one-line description of where the probe goes, e.g. `url http://host/mcp` or `command node`. */
  readonly target: string;
  /** The last lines a stdio child wrote to stderr, secrets scrubbed (empty for HTTP upstreams). */
  stderrTail(): string;
  /** How a stdio child ended, once it has (undefined for HTTP upstreams and while it runs). */
  exit(): GroupExit | undefined;
  /** Resolves once a stdio child has ended, or after `ms` (at once for HTTP upstreams). */
  settle(ms: number): Promise<void>;
}

/** Builds (does not start) the transport for `upstream`. */
export function probeTransport(upstream: UpstreamConfig, config: Pick<GatewayConfig, 'file' | 'secrets' | 'limits'>): ProbeTransport {
  switch (upstream.kind) {
    case 'http':
      return {
        transport: new StreamableHTTPClientTransport(new URL(upstream.url), { requestInit: { headers: { ...upstream.headers } }, fetch: probeFetch(config.limits.maxResultBytes) }),
        target: `url ${withoutCredentials(upstream.url)}`,
        stderrTail: () => '',
        exit: () => undefined,
        settle: async () => {},
      };
    case 'sse':
      return {
        transport: new SSEClientTransport(new URL(upstream.sse), { requestInit: { headers: { ...upstream.headers } }, fetch: probeFetch(config.limits.maxResultBytes) }),
        target: `sse ${withoutCredentials(upstream.sse)}`,
        stderrTail: () => '',
        exit: () => undefined,
        settle: async () => {},
      };
    case 'stdio': {
      // stderr is piped, never inherited: a server's banner would interleave with the report.
      const redactor = new Redactor(config.secrets);
      const transport = new GroupStdioTransport({
        spawn: {
          command: upstream.command,
          args: upstream.args,
          env: childEnv(upstream),
          cwd: childCwd(upstream, config),
          stderr: { redact: (line) => redactor.scrub(line) },
        },
        maxLineBytes: config.limits.maxResultBytes,
        graceMs: PROBE_KILL_GRACE_MS,
      });
      return {
        transport,
        target: `command ${upstream.command}`,
        stderrTail: () => transport.stderrTail(),
        exit: () => transport.exit,
        settle: (ms) => transport.settle(ms),
      };
    }
  }
}
