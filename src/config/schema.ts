/**
 * The JSON Schema (draft 2020-12) of the mcp-retrofit YAML config file. It is the single source of truth:
 * the loader validates against it and `npm run schema` writes it to mcp-retrofit.schema.json for editors.
 *
 * Two editor extensions (understood by yaml-language-server / VS Code) carry the messages users see:
 * `errorMessage` (replaces any error of the schema it sits on — so it only sits on single-rule subschemas)
 * and `patternErrorMessage` (replaces a `pattern` failure). A `tools:` entry is in ./schema-tool.ts. The
 * schema files import only each other: the generator script transpiles them on their own.
 */
import { ALWAYS_RESERVED } from './routes.js';
import { headers } from './schema-headers.js';
import { coerce, forbidden, legacyRoots, onInvalid, removeAdditional, shadow, tool } from './schema-tool.js';

/**
 * The longest delay Node's timers keep (2^31-1 ms, about 24.8 days): a longer one is set to 1 ms with a
 * TimeoutOverflowWarning, so every millisecond setting stops here.
 */
const MAX_TIMER_MS = 2_147_483_647;
/** The largest body or result the gateway holds: it must fit in one JavaScript string (V8: about 512 MiB) with room. */
const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** A millisecond setting: 1 up to the longest timer Node keeps. */
const ms = (description: string) => ({ type: 'integer', minimum: 1, maximum: MAX_TIMER_MS, description });

const bridge = {
  type: 'boolean',
  description:
    'Negotiate each side on its own (default true): a client asking for 2025-06-18 or later in front of an upstream that answers 2025-03-26 or older is answered the revision it asked for, so it gets outputSchemas and structuredContent.',
};
const maxSessions = {
  type: 'integer',
  minimum: 1,
  description:
    'command/sse upstream: most client sessions at once (a stdio child each unless `share`; a legacy SSE connection each); a new session beyond it gets 503. Default: 32 for command (1024 with share: true), 256 for sse.',
};
const idleTimeoutMs = ms('command/sse upstream: a client session with no HTTP exchange and nothing in flight for this long is closed, its child stopped (default 900000, 15 minutes).');
const stateless = {
  type: 'object',
  additionalProperties: false,
  description:
    'How 2026-07-28 (session-less) clients are served where the upstream does not speak that revision (command and sse upstreams; url upstreams whose server/discover shows no 2026-07-28): the gateway answers server/discover from the upstream\'s InitializeResult and serves each request on a pooled upstream session it initialized itself (one request at a time per session).',
  properties: {
    serve: {
      type: 'boolean',
      description: 'Serve 2026-07-28 clients (default true; `bridge: false` turns it off too). false: a 2026-07-28 request gets what a server of the upstream\'s own revision answers (400, session required; a url upstream answers it itself), and the client falls back to initialize.',
    },
    poolSize: {
      type: 'integer',
      minimum: 1,
      description: 'Most pooled upstream sessions at once (default 4): for command upstreams, children. A request finding all busy waits for one (up to timeoutMs), then gets 503.',
    },
    idleTimeoutMs: ms('A pooled session unused for this long is closed, its child stopped (default 300000, 5 minutes).'),
  },
};
const share = {
  type: 'boolean',
  description:
    'command upstream: one child for every client session, its requests multiplexed with remapped ids (for servers that keep no per-client state); default false: one child per session.',
};

const stringMap = (description: string) => ({
  type: 'object',
  additionalProperties: { type: 'string' },
  description,
});
/**
 * `record:` (in `defaults` and per upstream): a bounded sample of real tools/call results per tool, kept as
 * JSON files for `mcp-retrofit infer`. An upstream's keys override the defaults' one by one.
 */
const recordProperties = {
  dir: {
    type: 'string',
    minLength: 1,
    description: "Directory of the recorded results, relative to the config file's directory; files go to DIR/<upstream>/<tool>/.",
  },
  maxPerTool: {
    type: 'integer',
    minimum: 0,
    description: 'Newest results kept per tool (default 20); 0 turns recording off (e.g. for one upstream when `defaults.record` is set).',
  },
  maxBytes: {
    type: 'integer',
    minimum: 1,
    description: "Largest result recorded, in bytes of its JSON (default 262144); larger results are skipped and counted in record_drops_total{reason=\"too_large\"}.",
  },
  secretNames: {
    type: 'array',
    items: { type: 'string', pattern: '^[A-Za-z0-9_.*-]+$' },
    description: 'More env/header names whose values are secrets in recordings (case-insensitive; `*` matches any run of characters), beside TOKEN, KEY, SECRET, PASSWORD, PASSWD, AUTH, CREDENTIAL, COOKIE, SESSION.',
  },
};
const record = {
  type: 'object',
  additionalProperties: false,
  description: 'Keep a bounded sample of real tools/call results per tool (argument values and secrets removed) for `mcp-retrofit infer`. Off unless set.',
  properties: recordProperties,
};
/** Without `defaults.record`, an upstream's `record` must name its own `dir`. */
const recordNeedsDir = {
  if: { required: ['defaults'], properties: { defaults: { type: 'object', required: ['record'] } } },
  else: {
    properties: {
      upstreams: {
        type: 'object',
        description: 'Without `defaults.record`, each `record` names its `dir`.',
        additionalProperties: {
          type: 'object',
          properties: {
            record: {
              type: 'object',
              description: 'Needs a `dir` here.',
              required: ['dir'],
              errorMessage: '`record` needs a `dir` (here or in `defaults.record`)',
            },
          },
        },
      },
    },
  },
};

const httpUrl = (description: string) => ({
  type: 'string',
  pattern: '^https?://[^\\s/?#]+[^\\s]*$',
  patternErrorMessage: 'must be an http:// or https:// URL',
  description,
});

const upstream = {
  type: 'object',
  additionalProperties: false,
  description: 'One MCP server behind the gateway. Exactly one of `url`, `sse`, `command`.',
  properties: {
    url: httpUrl('Streamable HTTP endpoint of the upstream MCP server.'),
    sse: httpUrl('Legacy HTTP+SSE (2024-11-05) endpoint of the upstream MCP server.'),
    command: { type: 'string', minLength: 1, description: 'stdio upstream: the program to spawn.' },
    args: { type: 'array', items: { type: 'string' }, description: 'stdio upstream: arguments for `command`.' },
    env: {
      ...stringMap('stdio upstream: environment variables added to the child process.'),
      propertyNames: { pattern: '^[^=\\x00]+$', patternErrorMessage: 'an environment variable name is not empty and holds no "=" or NUL' },
    },
    cwd: {
      type: 'string',
      minLength: 1,
      description: "stdio upstream: working directory; relative to the config file's directory, which is the default.",
    },
    headers,
    publicUrl: httpUrl(
      "url/sse upstream: the URL clients use for this upstream through the gateway (e.g. behind a front proxy). OAuth metadata names it as the `resource`; by default it is built from each request's Host and X-Forwarded-Proto.",
    ),
    timeoutMs: ms('Per-request timeout towards the upstream in milliseconds (default 60000); open streams are exempt once headers arrive.'),
    path: {
      type: 'string',
      // No empty, `.` or `..` segment: clients and proxies fold them, so `/a/../metrics` would be `/metrics`.
      pattern: '^(?!.*//)/(?!(?:.*/)?\\.\\.?(?:/|$))[A-Za-z0-9._~/-]*$',
      patternErrorMessage: 'must start with "/" and hold only letters, digits and . _ ~ / -, with no empty, "." or ".." segment',
      allOf: [
        {
          not: { pattern: `^(?:${ALWAYS_RESERVED.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})/?$` },
          errorMessage: `is reserved (${ALWAYS_RESERVED.join(', ')} belong to the gateway)`,
        },
      ],
      description:
        'The route clients use for this upstream (default `/<name>/mcp`). It may not take a route of another upstream (its path, an sse: upstream\'s `<path>/message`, anything under a url: upstream\'s `<path>/.well-known/`) or of the gateway (/healthz, /readyz, /metrics, /debug/retrofit, /ui and under it with the console on, the OAuth discovery routes).',
    },
    record,
    shadow,
    tools: {
      type: 'object',
      propertyNames: { minLength: 1 },
      additionalProperties: tool,
      description: 'Tool settings by key: exact tool names win, then globs in file order.',
    },
    bridge,
    maxSessions,
    idleTimeoutMs,
    share,
    stateless,
    stderr: {
      enum: ['info', 'debug', 'off'],
      description:
        'command upstream: the level the child\'s stderr lines are logged at (default debug: servers often echo what they are sent there, e.g. the user\'s thoughts); off keeps them only for error messages (the last lines quoted when a child exits).',
    },
  },
  oneOf: [{ required: ['url'] }, { required: ['sse'] }, { required: ['command'] }],
  allOf: [
    {
      if: { required: ['command'] },
      then: {
        properties: {
          headers: forbidden('`headers` is only for url and sse upstreams'),
          publicUrl: forbidden('`publicUrl` is only for url and sse upstreams'),
        },
      },
      else: {
        properties: {
          args: forbidden('`args` is only for command (stdio) upstreams'),
          env: forbidden('`env` is only for command (stdio) upstreams'),
          cwd: forbidden('`cwd` is only for command (stdio) upstreams'),
          share: forbidden('`share` is only for command (stdio) upstreams'),
          stderr: forbidden('`stderr` is only for command (stdio) upstreams'),
        },
      },
    },
    {
      if: { required: ['url'] },
      then: {
        properties: {
          maxSessions: forbidden('`maxSessions` is only for command and sse upstreams (the gateway does not own url upstreams\' sessions)'),
          idleTimeoutMs: forbidden('`idleTimeoutMs` is only for command and sse upstreams (the gateway does not own url upstreams\' sessions)'),
        },
      },
    },
  ],
};

/** The config file's JSON Schema; mcp-retrofit.schema.json is this object serialised by `renderSchemaFile`. */
export const CONFIG_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'mcp-retrofit configuration',
  description:
    'mcp-retrofit gateway configuration. `${VAR}` and `${VAR:-default}` are expanded in every string value; `$${VAR}` is a literal `${VAR}`.',
  type: 'object',
  additionalProperties: false,
  required: ['upstreams'],
  allOf: [recordNeedsDir],
  properties: {
    listen: {
      type: 'object',
      additionalProperties: false,
      description: 'Where the gateway listens.',
      properties: {
        host: { type: 'string', minLength: 1, description: 'Interface to bind (default 127.0.0.1).' },
        port: { type: 'integer', minimum: 0, maximum: 65535, description: 'TCP port (default 8080; 0 picks a free port).' },
      },
    },
    auth: {
      type: 'object',
      additionalProperties: false,
      required: ['bearerTokens'],
      description: 'When set, clients must send `Authorization: Bearer <token>` with one of these tokens.',
      properties: {
        bearerTokens: {
          type: 'array',
          minItems: 1,
          items: { type: 'string', minLength: 1 },
          description: 'Accepted bearer tokens; use `${VAR}` to keep them out of the file.',
        },
      },
    },
    allowedOrigins: {
      type: 'array',
      items: { type: 'string', minLength: 1 },
      description:
        'Origins allowed to call the gateway besides loopback ones (http://localhost:*, http://127.0.0.1:*, http://[::1]:*); a request with any other Origin header gets 403. Requests without Origin pass. "*" allows every origin.',
    },
    allowedHosts: {
      type: 'array',
      items: {
        type: 'string',
        pattern: '^(\\*|(\\*\\.)?[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*\\.?(:[0-9]{1,5})?|\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?)$',
        patternErrorMessage: 'must be a host name or IP address, optionally with :port (mcp.example.com, *.svc.cluster.local, [::1]:8080), or "*"',
      },
      description:
        'Host header values accepted besides loopback ones (localhost, 127.0.0.0/8, [::1]); without a port an entry matches any port, `*.example.com` matches its subdomains, "*" turns the Host check off. The check runs when the gateway is bound to a loopback address, or when this list is set.',
    },
    sessionIdPrefix: {
      type: 'string',
      pattern: '^[A-Za-z0-9_-]{1,64}$',
      patternErrorMessage: 'must be 1 to 64 letters, digits, `_` or `-` (it starts session ids: `<prefix>.<uuid>`)',
      description:
        'Starts the id of every session the gateway holds (command and sse upstreams, and legacy HTTP+SSE clients): `<prefix>.<uuid>`. Give each replica its own (e.g. `${HOSTNAME}`) and route on it at the load balancer, so that a session\'s requests reach the replica that holds it. Sessions of url upstreams are the upstream\'s and need no routing, except the ids the gateway gives a client a profile matched when the upstream issues none (`<prefix>.mr-<uuid>`): the replica that gave one remembers its profile.',
    },
    limits: {
      type: 'object',
      additionalProperties: false,
      description: 'Size and time bounds of the server. Every timeout is at most 2147483647 ms (the longest timer Node keeps), every byte size has its own ceiling.',
      properties: {
        maxRequestBytes: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_BODY_BYTES,
          description: 'Largest accepted request body in bytes (default 4194304, at most 268435456).',
        },
        maxResultBytes: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_BODY_BYTES,
          description: 'Largest upstream result in bytes (default 16777216, at most 268435456); larger ones become a JSON-RPC error.',
        },
        headersTimeoutMs: ms("Longest a request's headers may take to arrive, in ms (default 10000); then 408 and the connection closes. At most requestTimeoutMs."),
        requestTimeoutMs: ms('Longest a whole request (headers and body) may take to arrive, in ms (default 30000); then 408 and the connection closes. Answers and streams are not bounded by it.'),
        keepAliveTimeoutMs: ms('How long an idle keep-alive connection stays open between requests, in ms (default 72000).'),
        maxHeaderBytes: {
          type: 'integer',
          minimum: 1024,
          maximum: 1_048_576,
          description: 'Largest request head (request line and headers) in bytes (default 16384, from 1024 to 1048576); a larger one gets 431.',
        },
      },
    },
    defaults: {
      type: 'object',
      additionalProperties: false,
      description: 'Settings every tool (onInvalid, shadow, legacyRoots, coerce, removeAdditional) and every upstream (bridge, maxSessions, idleTimeoutMs, share, stateless, record, shadow) inherits unless it sets its own.',
      properties: {
        onInvalid,
        shadow,
        legacyRoots,
        coerce,
        removeAdditional: removeAdditional(
          "Inherited by tools for values extracted from text; an upstream's own structuredContent is pruned only when the tool's entry sets it.",
        ),
        bridge,
        maxSessions,
        idleTimeoutMs,
        share,
        stateless,
        record: { ...record, required: ['dir'] },
      },
    },
    telemetry: {
      type: 'object',
      additionalProperties: false,
      description:
        'OpenTelemetry traces over OTLP/HTTP. Off unless this block or the environment (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) turns it on; the standard OTEL_* variables win over these keys.',
      properties: {
        enabled: { type: 'boolean', description: 'Trace even without an endpoint here (the exporters then use OTEL_EXPORTER_OTLP_* or http://localhost:4318). Default: on when `endpoint` is set.' },
        endpoint: { type: 'string', minLength: 1, pattern: '^https?://', patternErrorMessage: 'must be an http:// or https:// URL', description: 'OTLP/HTTP base URL; /v1/traces is appended (as OTEL_EXPORTER_OTLP_ENDPOINT).' },
        protocol: { enum: ['http/protobuf', 'http/json'], description: 'OTLP encoding (as OTEL_EXPORTER_OTLP_PROTOCOL); default http/protobuf.' },
        serviceName: { type: 'string', minLength: 1, description: 'service.name (as OTEL_SERVICE_NAME); default mcp-retrofit.' },
        sampler: { enum: ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'], description: 'As OTEL_TRACES_SAMPLER; default parentbased_always_on.' },
        samplerArg: { type: 'string', description: 'As OTEL_TRACES_SAMPLER_ARG (the ratio, 0 to 1).' },
        captureContent: { type: 'boolean', description: 'Record tools/call arguments and result text on spans (gen_ai.tool.call.arguments / .result), at most 4 KiB each, secrets and argument values redacted as in recordings. Default false.' },
        metrics: { type: 'boolean', description: 'Also export the MCP metrics (mcp.server.operation.duration, mcp.client.operation.duration, mcp.server.session.duration) over OTLP, beside /metrics (as OTEL_METRICS_EXPORTER=otlp, which wins). Default false.' },
        metricsIntervalMs: { type: 'integer', minimum: 1000, maximum: MAX_TIMER_MS, description: 'How often metrics are exported, in ms (as OTEL_METRIC_EXPORT_INTERVAL); default 60000.' },
      },
    },
    ui: {
      type: 'object',
      additionalProperties: false,
      description:
        'The operator console at /ui (docs/console.md): what the gateway does to every tool, sessions, and what infer proposes from recordings. Decided when the gateway starts: a reload does not change it.',
      properties: {
        enabled: { type: 'boolean', description: 'Serve the console at /ui (default false: no /ui route at all, and nothing of it runs).' },
        write: { type: 'boolean', description: 'Let the Learn page apply proposals to the config file (a backup kept, then hot reload takes it). Default false: read-only.' },
        remote: { type: 'boolean', description: 'Serve the console to peers that are not loopback (127.0.0.0/8, ::1). Default false. The Host/Origin checks and auth.bearerTokens apply either way.' },
        samples: { type: 'integer', minimum: 1, maximum: 200, description: 'Last failures and last successes kept per tool (each; default 20).' },
        maxTextBytes: { type: 'integer', minimum: 256, maximum: 1048576, description: 'A kept sample text is cut at this many bytes (default 16384).' },
      },
    },
    clients: {
      type: 'array',
      description:
        'Client profiles: what each kind of client is served of tool definitions and results. The first whose `match` holds for a session (its initialize `clientInfo`, or a 2026-07-28 request\'s `_meta` client info, and its revision) applies; no match: no profile.',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'match'],
        properties: {
          name: { type: 'string', minLength: 1, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$', patternErrorMessage: 'profile names start with a letter or digit and hold only letters, digits and _ . -', description: 'The profile\'s name, in logs, metrics and `try --client`.' },
          match: {
            type: 'object',
            additionalProperties: false,
            minProperties: 1,
            description: 'What a client must say of itself; every key given must hold.',
            properties: {
              name: { type: 'string', minLength: 1, description: 'Glob over clientInfo.name (case-sensitive), e.g. "claude-*".' },
              version: { type: 'string', minLength: 1, description: 'Semver range over clientInfo.version, e.g. "<1.2". A version that is not semver matches no range.' },
              revision: { type: 'array', minItems: 1, items: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}$', patternErrorMessage: 'must be a protocol revision such as 2025-11-25' }, description: 'Protocol revisions the profile applies to (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28).' },
            },
          },
          outputSchema: { enum: ['keep', 'strip'], description: 'strip: no outputSchema in tools/list, no structuredContent in results (the text stays; a result with only structuredContent gets its JSON as text). Default keep.' },
          schemaDialect: { enum: ['keep', '2020-12'], description: '2020-12: input and output schemas of draft-04/06/07 or 2019-09 rewritten to 2020-12, accepting the same instances. Default keep.' },
          textFallback: { type: 'boolean', description: 'true: a result with structuredContent also carries its JSON as a text block. Default false.' },
          inputSchemaRoot: { enum: ['keep', 'object'], description: 'object: an inputSchema root of anyOf/oneOf/allOf branches merged into one object schema (looser, never stricter). Default keep.' },
        },
      },
    },
    upstreams: {
      type: 'object',
      minProperties: 1,
      propertyNames: {
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$',
        patternErrorMessage: 'upstream names start with a letter or digit and hold only letters, digits and _ . -',
      },
      additionalProperties: upstream,
      description: 'The MCP servers behind the gateway, by name (the name is used in the default path, logs and metrics).',
    },
  },
} as const;

/** The exact text of mcp-retrofit.schema.json. */
export function renderSchemaFile(): string {
  return `${JSON.stringify(CONFIG_SCHEMA, null, 2)}\n`;
}
