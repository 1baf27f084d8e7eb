/**
 * A real OTLP/HTTP trace receiver for tests: a node http server on port 0 taking POST /v1/traces in either
 * encoding the exporters speak — `application/json` (OTLP/JSON) and `application/x-protobuf` (decoded with
 * protobufjs against the subset of the OTLP trace protos the assertions need) — and answering 200 as a
 * collector does. Spans come out flat, with hex ids and plain attribute values.
 */
import protobuf from 'protobufjs';
import { listen, readBody } from './listen.js';

/** One received span. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  /** 2 SERVER, 3 CLIENT (OTLP SpanKind). */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  /** 0 unset, 1 ok, 2 error. */
  readonly status: number;
  readonly service?: string;
}

// The fields of opentelemetry/proto/collector/trace/v1 that a span assertion reads, with their numbers.
const PROTO = `
syntax = "proto3";
message AnyValue { oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; } }
message KeyValue { string key = 1; AnyValue value = 2; }
message Resource { repeated KeyValue attributes = 1; }
message Status { string message = 2; int32 code = 3; }
message Span { bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4; string name = 5; int32 kind = 6; repeated KeyValue attributes = 9; Status status = 15; }
message ScopeSpans { repeated Span spans = 2; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
`;
const Request = protobuf.parse(PROTO, { keepCase: false }).root.lookupType('ExportTraceServiceRequest');

type Attr = { key: string; value?: Record<string, unknown> };

function value(v: Record<string, unknown> | undefined): string | number | boolean {
  if (!v) return '';
  if (v.stringValue !== undefined) return String(v.stringValue);
  if (v.boolValue !== undefined) return Boolean(v.boolValue);
  // OTLP/JSON writes int64 as a string; protobufjs gives what `longs` says (String here).
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  return '';
}

function attributes(list: readonly Attr[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, value(a.value)]));
}

const hex = (b: unknown): string => (typeof b === 'string' ? b : b instanceof Uint8Array ? Buffer.from(b).toString('hex') : '');

function flatten(request: { resourceSpans?: { resource?: { attributes?: Attr[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] }): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of request.resourceSpans ?? []) {
    const service = attributes(rs.resource?.attributes)['service.name'];
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: String(s.name ?? ''),
          kind: Number(s.kind ?? 0),
          attributes: attributes(s.attributes as Attr[] | undefined),
          status: Number((s.status as { code?: unknown } | undefined)?.code ?? 0),
          ...(typeof service === 'string' && { service }),
        });
      }
    }
  }
  return out;
}

/** One histogram data point received over OTLP/JSON metrics. */
export interface ReceivedPoint {
  readonly metric: string;
  readonly unit: string;
  readonly count: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
}

type JsonMetrics = { resourceMetrics?: { scopeMetrics?: { metrics?: { name: string; unit?: string; histogram?: { dataPoints?: { count?: string | number; attributes?: Attr[] }[] } }[] }[] }[] };

function metricPoints(request: JsonMetrics): ReceivedPoint[] {
  const out: ReceivedPoint[] = [];
  for (const rm of request.resourceMetrics ?? []) {
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        for (const p of m.histogram?.dataPoints ?? []) out.push({ metric: m.name, unit: m.unit ?? '', count: Number(p.count ?? 0), attributes: attributes(p.attributes) });
      }
    }
  }
  return out;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:PORT` (the exporters append /v1/traces, /v1/metrics). */
  readonly endpoint: string;
  readonly spans: ReceivedSpan[];
  /** Histogram points from OTLP/JSON metric exports. */
  readonly points: ReceivedPoint[];
  /** Content types of the export requests received. */
  readonly contentTypes: string[];
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const points: ReceivedPoint[] = [];
  const contentTypes: string[] = [];
  const listening = await listen((req, res) => {
    void readBody(req).then((body) => {
      const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim();
      if (req.url === '/v1/metrics' && type === 'application/json') {
        points.push(...metricPoints(JSON.parse(body.toString('utf8')) as never));
        return void res.writeHead(200, { 'content-type': type }).end('{}');
      }
      contentTypes.push(type);
      if (req.url !== '/v1/traces') return void res.writeHead(404).end();
      if (type === 'application/json') spans.push(...flatten(JSON.parse(body.toString('utf8')) as never));
      else spans.push(...flatten(Request.toObject(Request.decode(body), { longs: String, bytes: Buffer, defaults: false }) as never));
      res.writeHead(200, { 'content-type': type }).end(type === 'application/json' ? '{}' : undefined);
    });
  });
  return { endpoint: listening.origin, spans, points, contentTypes };
}
