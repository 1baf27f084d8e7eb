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
import { trace, type Tracer } from '@opentelemetry/api';
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
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';

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
}

/** What the gateway's code sees of telemetry: a tracer when tracing is on. */
export interface TelemetryRuntime {
  readonly tracer: Tracer | undefined;
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
  });
  const tracer = provider.getTracer('mcp-retrofit', version);
  return {
    tracer,
    captureContent: settings?.captureContent === true,
    async shutdown() {
      await provider.shutdown();
    },
  };
}

/** For tests and probes: the API's no-op tracer (records nothing). */
export function noopTracer(): Tracer {
  return trace.getTracer('noop');
}
