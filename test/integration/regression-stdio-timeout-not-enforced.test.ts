/**
 * Regression: `timeoutMs` was accepted on `command` upstreams but not enforced — a stdio tool call that never
 * answered held the client until the client's own timeout (20 s in the report), where the config said 2 s.
 * Now every gateway-owned session deadlines its requests: past timeoutMs the client gets JSON-RPC -32001
 * (RETROFIT_ERR_UPSTREAM_TIMEOUT) and the child gets `notifications/cancelled` for the request, which the
 * fixture's `block` tool reports on stderr (the gateway logs the child's stderr). The session keeps working.
 */
import { describe, expect, it } from 'vitest';
import { connectV1, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

describe('regression: a stdio call that never answers', () => {
  it('gets -32001 after timeoutMs, the child is told notifications/cancelled, and the session goes on', async () => {
    const gateway = await startStdioGateway({ upstream: { timeoutMs: 2_000 } }); // long enough for a spawn + initialize on a loaded machine
    // The client's own timeout is far beyond the gateway's: the gateway's answer is what ends the call.
    const client = await connectV1(gateway.url, 'timeout');
    const call = client.callTool({ name: 'block', arguments: {} }, undefined, { timeout: 20_000 });
    await expect(call).rejects.toMatchObject({ code: -32001, message: expect.stringContaining('did not answer within 2000ms') });
    const cancelled = await gateway.waitForLog((l) => typeof l.line === 'string' && l.line.startsWith('block cancelled'));
    expect(cancelled).toMatchObject({ upstream: 'fixture', stream: 'stderr' });
    expect(gateway.logs.find((l) => l.msg === 'upstream did not answer within timeoutMs; request cancelled')).toMatchObject({ method: 'tools/call', timeoutMs: 2_000 });
    expect(await gateway.metrics.upstreamErrors.get()).toMatchObject({ values: [{ labels: { upstream: 'fixture', kind: 'timeout' }, value: 1 }] });
    expect(firstText(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('still here');
  });

  it('progress moves the deadline on: a call that reports progress is not cut off while it does', async () => {
    // server-everything's long-running operation reports progress every step; each step (1.25 s) is half of
    // timeoutMs, the whole call (5 s) twice as long. timeoutMs also bounds the child's spawn and initialize,
    // which a loaded machine (a full suite on 2 cores) can stretch past 1.5 s.
    const { EVERYTHING_SERVER } = await import('../helpers/stdio-gateway.js');
    const gateway = await startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'], upstream: { timeoutMs: 2_500 } });
    const client = await connectV1(gateway.url, 'progress');
    const progress: number[] = [];
    const result = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 4 } }, undefined, { onprogress: (p) => progress.push(p.progress), timeout: 20_000 });
    expect(progress).toHaveLength(4);
    expect(result.isError).toBeFalsy();
  });
});
