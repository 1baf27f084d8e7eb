/**
 * A stdio server that prints junk to stdout, logs to stderr, and answers with a line over the limit:
 * the junk is skipped and logged, stderr is logged tagged with upstream and session, the over-long answer
 * becomes a clean JSON-RPC error for that one request, and the session keeps working throughout.
 */
import { describe, expect, it } from 'vitest';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { connectV1, FIXTURE_SERVER, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

describe('stdio upstream: noisy stdout and over-long lines', () => {
  it('skips junk, logs stderr, fails only the over-long answer, and keeps the session', async () => {
    const limit = 64 * 1024;
    const gateway = await startStdioGateway({ args: [FIXTURE_SERVER, '--noisy'], maxResultBytes: limit });
    const client = await connectV1(gateway.url, 'noisy');
    const sessionId = (client.transport as StreamableHTTPClientTransport).sessionId;

    expect(firstText(await client.callTool({ name: 'echo', arguments: { text: 'one' } }))).toBe('one');
    await expect(client.callTool({ name: 'huge', arguments: { bytes: limit * 2 } })).rejects.toMatchObject({
      code: -32003,
      message: expect.stringContaining(`larger than ${limit} bytes`),
    });
    // Just under the limit still passes, whole.
    const big = await client.callTool({ name: 'huge', arguments: { bytes: limit - 200 } });
    expect(firstText(big)).toHaveLength(limit - 200);
    expect(firstText(await client.callTool({ name: 'echo', arguments: { text: 'two' } }))).toBe('two');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo');

    const logs = gateway.logs;
    const junk = logs.filter((l) => l.msg === 'non-JSON line on upstream stdout skipped');
    expect(junk.map((l) => l.line)).toEqual(expect.arrayContaining(['junk: start {not json', 'junk: echo {not json']));
    expect(junk[0]).toMatchObject({ upstream: 'fixture', session: sessionId, level: 40 });
    expect(await gateway.waitForLog((l) => l.line === 'echoing two')).toMatchObject({ stream: 'stderr', upstream: 'fixture', session: sessionId });
    expect(logs.find((l) => l.msg === 'over-long line on upstream stdout dropped')).toMatchObject({ bytes: expect.any(Number), limit });
    expect(await gateway.metrics.upstreamErrors.get()).toMatchObject({ values: [{ labels: { kind: 'too_large' }, value: 1 }] });
  });
});
