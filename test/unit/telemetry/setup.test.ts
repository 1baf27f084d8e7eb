/** When telemetry is on, and which sampler: the environment wins over the config's block (issue 27). */
import { describe, expect, it } from 'vitest';
import { samplerFrom, startTelemetry, TELEMETRY_OFF } from '../../../src/telemetry/setup.js';

describe('startTelemetry', () => {
  it('is off without an endpoint or `enabled`, and with OTEL_SDK_DISABLED=true whatever else is set', async () => {
    expect(startTelemetry(undefined, '1.0.0', {})).toBe(TELEMETRY_OFF);
    expect(startTelemetry({ protocol: 'http/json' }, '1.0.0', {})).toBe(TELEMETRY_OFF);
    expect(startTelemetry({ endpoint: 'http://127.0.0.1:9' }, '1.0.0', { OTEL_SDK_DISABLED: 'true' })).toBe(TELEMETRY_OFF);
  });

  it('is on with an endpoint in the environment even when the block says enabled: false (env wins)', async () => {
    const on = startTelemetry({ enabled: false }, '1.0.0', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect(on.tracer).toBeDefined();
    await on.shutdown();
    const fromBlock = startTelemetry({ endpoint: 'http://127.0.0.1:9', captureContent: true }, '1.0.0', {});
    expect({ tracer: fromBlock.tracer !== undefined, capture: fromBlock.captureContent }).toEqual({ tracer: true, capture: true });
    await fromBlock.shutdown();
  });

  it('samples as OTEL_TRACES_SAMPLER says, parent-based always-on by default', () => {
    expect(samplerFrom(undefined, undefined).toString()).toMatch(/ParentBased\{root=AlwaysOnSampler/);
    expect(samplerFrom('always_off', undefined).toString()).toBe('AlwaysOffSampler');
    expect(samplerFrom('traceidratio', '0.25').toString()).toBe('TraceIdRatioBased{0.25}');
    expect(samplerFrom('parentbased_traceidratio', 'nonsense').toString()).toMatch(/TraceIdRatioBased\{1\}/);
  });
});
