/**
 * OpenTelemetry for the gateway: off unless the standard environment (`OTEL_EXPORTER_OTLP_ENDPOINT`,
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or the config's `telemetry:` block turns it on; the environment wins
 * over the block where both say something, as the OTel specification has it. Traces go over OTLP/HTTP with
 * the exporter the protocol names (`http/protobuf`, default, or `http/json`), in batches; the exporters read
 * their own `OTEL_EXPORTER_OTLP_*` variables (headers, timeout, compression). `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` shape the resource; `OTEL_TRACES_SAMPLER` (+ `_ARG`) the sampler;
 * `OTEL_SDK_DISABLED=true` keeps it off whatever else is set.
 *
 * Nothing is registered globally: the gateway passes its tracer where it is needed (./spans.ts), so when
 * telemetry is off no OTel code runs on a request at all.
 */
import type { Histogram, Tracer } from '@opentelemetry/api';
import { OTLPMetricExporter as ProtoMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
  type SpanExporter,
} from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION, METRIC_MCP_CLIENT_OPERATION_DURATION, METRIC_MCP_SERVER_OPERATION_DURATION, METRIC_MCP_SERVER_SESSION_DURATION } from './names.js';
import { CONTENT_MAX } from './spans.js';

/** The `telemetry:` block of the config (every key optional; the environment wins). */
export interface TelemetrySettings {
  /** Turn tracing on without an endpoint in the environment (default: on when an endpoint is known). */
  readonly enabled?: boolean;
  /** OTLP/HTTP base URL (`/v1/traces` is appended), as OTEL_EXPORTER_OTLP_ENDPOINT. */
  readonly endpoint?: string;
  readonly protocol?: 'http/protobuf' | 'http/json';
  readonly serviceName?: string;
  /** As OTEL_TRACES_SAMPLER (`parentbased_always_on` by default) and its argument. */
  readonly sampler?: string;
  readonly samplerArg?: string;
  /** Record tools/call arguments and results on spans (bounded and redacted); default false. */
  readonly captureContent?: boolean;
  /** Export the MCP metrics over OTLP too (as OTEL_METRICS_EXPORTER=otlp); default false. */
  readonly metrics?: boolean;
  /** How often metrics are exported (ms; as OTEL_METRIC_EXPORT_INTERVAL); default 60000. */
  readonly metricsIntervalMs?: number;
}

/** The MCP metrics of the semantic conventions, in seconds. */
export interface McpInstruments {
  readonly serverOperation: Histogram;
  readonly clientOperation: Histogram;
  readonly serverSession: Histogram;
}

/** What the gateway's code sees of telemetry: a tracer when tracing is on. */
export interface TelemetryRuntime {
  readonly tracer: Tracer | undefined;
  /** When metrics are exported over OTLP. */
  readonly instruments?: McpInstruments;
  readonly captureContent: boolean;
  /** Flush what is batched and stop exporting (the app's close). */
  shutdown(): Promise<void>;
}

export const TELEMETRY_OFF: TelemetryRuntime = Object.freeze({ tracer: undefined, captureContent: false, shutdown: async () => {} });

type Env = Readonly<Record<string, string | undefined>>;

/** The sampler OTEL_TRACES_SAMPLER names (unknown names: the default, parent-based always-on). */
export function samplerFrom(name: string | undefined, arg: string | undefined): Sampler {
  const ratio = (): number => {
    const n = Number(arg);
    return Number.isFinite(n) && n >= 0 && n <= 1 ? n : 1;
  };
  switch ((name ?? '').trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

function exporterFor(protocol: string, endpoint: string | undefined, envHasEndpoint: boolean): SpanExporter {
  // The exporters read OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT themselves; a url given here would override them.
  const url = envHasEndpoint || endpoint === undefined ? undefined : `${endpoint.replace(/\/+$/, '')}/v1/traces`;
  const options = url === undefined ? {} : { url };
  return protocol === 'http/json' ? new JsonExporter(options) : new ProtoExporter(options);
}

/** Telemetry as the environment and the config's block say; TELEMETRY_OFF when neither turns it on. */
export function startTelemetry(settings: TelemetrySettings | undefined, version: string, env: Env = process.env): TelemetryRuntime {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return TELEMETRY_OFF;
  const envEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const envHasEndpoint = envEndpoint !== undefined && envEndpoint !== '';
  const on = envHasEndpoint || settings?.enabled === true || (settings?.enabled !== false && settings?.endpoint !== undefined);
  if (!on) return TELEMETRY_OFF;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? settings?.protocol ?? 'http/protobuf';
  const exporter = exporterFor(protocol, settings?.endpoint, envHasEndpoint);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the config's name.
  const base = resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings?.serviceName ?? 'mcp-retrofit', [ATTR_SERVICE_VERSION]: version });
  const resource = base.merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerFrom(env.OTEL_TRACES_SAMPLER ?? settings?.sampler, env.OTEL_TRACES_SAMPLER_ARG ?? settings?.samplerArg),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
    // Attribute values a client chose (a tool name, a request id) are cut at the length captured content has.
    spanLimits: { attributeValueLengthLimit: CONTENT_MAX },
  });
  const tracer = provider.getTracer('mcp-retrofit', version);
  const metrics = metricsFor(settings, env, protocol, envHasEndpoint, resource, version);
  return {
    tracer,
    ...(metrics && { instruments: metrics.instruments }),
    captureContent: settings?.captureContent === true,
    async shutdown() {
      await Promise.all([provider.shutdown(), metrics?.provider.shutdown()]);
    },
  };
}

/** Bucket bounds the conventions recommend for MCP operation and session durations (seconds). */
const OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** The MCP metrics over OTLP, when OTEL_METRICS_EXPORTER names otlp or the block says `metrics: true`. */
function metricsFor(settings: TelemetrySettings | undefined, env: Env, protocol: string, envHasEndpoint: boolean, resource: ReturnType<typeof resourceFromAttributes>, version: string): { provider: MeterProvider; instruments: McpInstruments } | undefined {
  const named = env.OTEL_METRICS_EXPORTER?.split(',').map((s) => s.trim().toLowerCase());
  const on = named !== undefined ? named.includes('otlp') : settings?.metrics === true;
  if (!on) return undefined;
  const metricsProtocol = env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL ?? protocol;
  const envMetricsEndpoint = (env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT ?? '') !== '' || envHasEndpoint;
  const url = envMetricsEndpoint || settings?.endpoint === undefined ? undefined : `${settings.endpoint.replace(/\/+$/, '')}/v1/metrics`;
  const options = url === undefined ? {} : { url };
  const exporter: PushMetricExporter = metricsProtocol === 'http/json' ? new JsonMetricExporter(options) : new ProtoMetricExporter(options);
  const interval = Number(env.OTEL_METRIC_EXPORT_INTERVAL ?? settings?.metricsIntervalMs ?? 60_000);
  const provider = new MeterProvider({
    resource,
    readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: Number.isFinite(interval) && interval > 0 ? interval : 60_000 })],
  });
  const meter = provider.getMeter('mcp-retrofit', version);
  const histogram = (name: string, description: string): Histogram => meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: OPERATION_BUCKETS } });
  return {
    provider,
    instruments: {
      serverOperation: histogram(METRIC_MCP_SERVER_OPERATION_DURATION, 'MCP request duration as observed by the gateway, from receiving the request until its answer is sent.'),
      clientOperation: histogram(METRIC_MCP_CLIENT_OPERATION_DURATION, 'MCP request duration towards the upstream, from sending it until the answer arrives.'),
      serverSession: histogram(METRIC_MCP_SERVER_SESSION_DURATION, 'Duration of the MCP sessions the gateway holds.'),
    },
  };
}
