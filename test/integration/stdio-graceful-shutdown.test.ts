/**
 * Closing the app (as `serve` does on SIGTERM) ends the sessions' GET streams, gives in-flight calls the
 * grace period, answers what is still pending with an error, and stops every child.
 */
import { describe, expect, it } from 'vitest';
import { alive, connectV1, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

describe('stdio upstream: app close', () => {
  it('drains and stops every child when the Fastify app closes', async () => {
    const gateway = await startStdioGateway({ shutdownGraceMs: 100 });
    const client = await connectV1(gateway.url, 'shutdown');
    const pid = Number(firstText(await client.callTool({ name: 'pid', arguments: {} })));
    const blocked = client.callTool({ name: 'block', arguments: {} });
    await gateway.waitForLog((l) => l.line === 'blocking');

    const rejected = expect(blocked).rejects.toMatchObject({ code: -32000, message: expect.stringContaining('shutting down') });
    await gateway.app.close();
    await rejected;
    expect(alive(pid)).toBe(false);
    expect(gateway.routes.pids()).toEqual([]);
    expect(gateway.routes.sessions()).toBe(0);
  });
});
