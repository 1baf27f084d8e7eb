import { errors as undiciErrors } from 'undici';
import { describe, expect, it } from 'vitest';
import { RetrofitError } from '../../../src/errors.js';
import { createLogger } from '../../../src/log.js';
import { createMetrics } from '../../../src/metrics.js';
import { failureKind, mapUpstreamFailure } from '../../../src/upstream/errors.js';
import { captureLogs } from '../../helpers/gateway.js';

function connectError(code: string): Error {
  return Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error(code), { code }) });
}

describe('failureKind', () => {
  it('classifies undici and socket failures', () => {
    expect(failureKind(new undiciErrors.HeadersTimeoutError())).toBe('timeout');
    expect(failureKind(new undiciErrors.ConnectTimeoutError())).toBe('timeout');
    expect(failureKind(connectError('ECONNREFUSED'))).toBe('unreachable');
    expect(failureKind(connectError('ENOTFOUND'))).toBe('unreachable');
    expect(failureKind(new undiciErrors.SocketError('other side closed'))).toBe('reset');
    expect(failureKind(connectError('ECONNRESET'))).toBe('reset');
    expect(failureKind(new undiciErrors.InvalidArgumentError('invalid expect header'))).toBe('internal');
    expect(failureKind(new undiciErrors.BodyTimeoutError())).toBe('timeout');
    expect(failureKind(Object.assign(new Error('bad'), { code: 'HPE_INVALID_CONSTANT' }))).toBe('protocol');
    // undici's own parser errors carry no code.
    expect(failureKind(new undiciErrors.HTTPParserError('Response does not match the HTTP/1.1 protocol'))).toBe('protocol');
    expect(failureKind(new undiciErrors.RequestAbortedError())).toBe('aborted');
    expect(failureKind(new DOMException('aborted', 'AbortError'))).toBe('aborted');
    expect(failureKind(new RetrofitError('RETROFIT_ERR_RESULT_TOO_LARGE', ['u', 1]))).toBe('too_large');
  });
});

describe('mapUpstreamFailure', () => {
  it('maps to 502/504 with the cause kept, logs and counts; client aborts map to nothing', async () => {
    const { lines, stream } = captureLogs();
    const ctx = { upstream: 'w', timeoutMs: 250, method: 'tools/call', log: createLogger({ destination: stream }), metrics: createMetrics({ defaultMetrics: false }) };
    const refused = connectError('ECONNREFUSED');
    const unreachable = mapUpstreamFailure(refused, ctx);
    expect(unreachable).toMatchObject({ status: 502, code: 'RETROFIT_ERR_UPSTREAM_UNREACHABLE', message: 'upstream "w" is unreachable' });
    expect(unreachable?.cause).toBe(refused);
    const timeout = mapUpstreamFailure(new undiciErrors.HeadersTimeoutError(), ctx);
    expect(timeout).toMatchObject({ status: 504, code: 'RETROFIT_ERR_UPSTREAM_TIMEOUT', message: 'upstream "w" did not answer within 250ms' });
    expect(mapUpstreamFailure(new undiciErrors.RequestAbortedError(), ctx)).toBeUndefined();
    expect(lines.filter((l) => l.level === 40).map((l) => l.kind)).toEqual(['unreachable', 'timeout']);
    const counted = await ctx.metrics.upstreamErrors.get();
    expect(counted.values.map((v) => [v.labels.kind, v.value])).toEqual([
      ['unreachable', 1],
      ['timeout', 1],
    ]);
  });

  it('maps our own fault to 500 RETROFIT_ERR_INTERNAL, logged as an error and never counted as the upstream\'s', async () => {
    const { lines, stream } = captureLogs();
    const ctx = { upstream: 'w', timeoutMs: 250, method: 'tools/call', log: createLogger({ destination: stream }), metrics: createMetrics({ defaultMetrics: false }) };
    const ours = new undiciErrors.InvalidArgumentError('invalid expect header');
    const mapped = mapUpstreamFailure(ours, ctx);
    expect(mapped).toMatchObject({ status: 500, code: 'RETROFIT_ERR_INTERNAL' });
    expect(mapped?.cause).toBe(ours);
    const reset = mapUpstreamFailure(new undiciErrors.SocketError('other side closed'), ctx);
    expect(reset).toMatchObject({ status: 502, code: 'RETROFIT_ERR_UPSTREAM_RESET' });
    expect(lines.filter((l) => l.level === 50).map((l) => l.code)).toEqual(['RETROFIT_ERR_INTERNAL']);
    expect((await ctx.metrics.upstreamErrors.get()).values.map((v) => [v.labels.kind, v.value])).toEqual([['reset', 1]]);
  });
});
