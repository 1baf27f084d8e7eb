/**
 * `share: true`: one stdio child serves every session. Two real v1 SDK clients, whose request ids collide
 * (both count from 0), get their own answers from the same child; a blocked call on one session does not
 * hold the other; the child outlives one session and stops with the last; a killed child fails both
 * sessions' calls and the next session gets a new child; a sampling request reaches the session whose call
 * it belongs to, and that client's answer reaches the child.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { alive, connectV1, EVERYTHING_SERVER, firstText, startStdioGateway, type StdioGateway } from '../helpers/stdio-gateway.js';

const share = () => startStdioGateway({ upstream: { share: true }, stdio: { killTimeoutMs: 1000 } });
const connect = (url: string) => connectV1(url, 'share-mode');
const pidOf = async (client: Client): Promise<number> => Number(firstText(await client.callTool({ name: 'pid', arguments: {} })));
const echo = async (client: Client, text: string): Promise<string> => firstText(await client.callTool({ name: 'echo', arguments: { text } }));
const terminate = (client: Client): Promise<void> => (client.transport as StreamableHTTPClientTransport).terminateSession();
/** Resolves once the child wrote "blocking" on stderr `n` times (it is inside that many calls). */
const blocking = (gateway: StdioGateway, n: number) => gateway.waitForLog(() => gateway.logs.filter((l) => l.line === 'blocking').length >= n);

describe('stdio upstream with share: true', () => {
  it('serves two sessions from one child, their colliding request ids answered apart', async () => {
    const gateway = await share();
    // Both initialize at once: the second waits for the first, then is answered from the cache.
    const [a, b] = await Promise.all([connect(gateway.url), connect(gateway.url)]);
    expect(a.getServerVersion()).toEqual(b.getServerVersion());

    const rounds = Array.from({ length: 8 }, (_, i) => i);
    const [fromA, fromB] = await Promise.all([Promise.all(rounds.map((i) => echo(a, `a-${i}`))), Promise.all(rounds.map((i) => echo(b, `b-${i}`)))]);
    expect(fromA).toEqual(rounds.map((i) => `a-${i}`));
    expect(fromB).toEqual(rounds.map((i) => `b-${i}`));

    const [pidA, pidB] = await Promise.all([pidOf(a), pidOf(b)]);
    expect(pidA).toBe(pidB);
    expect(gateway.routes.pids()).toEqual([pidA]); // one entry per child
    expect(gateway.routes.sessions()).toBe(2);
    expect(await gateway.metrics.children.get()).toMatchObject({ values: [{ value: 1 }] });
    expect(gateway.logs.filter((l) => l.msg === 'upstream child started')).toHaveLength(1);

    // The child's memory is shared: that is what share mode is for (servers that keep no per-client state).
    await a.callTool({ name: 'remember', arguments: { value: 'from-a' } });
    expect(JSON.parse(firstText(await b.callTool({ name: 'recall', arguments: {} })))).toEqual(['from-a']);
    expect(gateway.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('share mode'))).toEqual([]);

    await gateway.close();
    expect(alive(pidA)).toBe(false);
  });

  it('keeps the other session going past a blocked call, keeps the child past one session, stops it with the last', async () => {
    const gateway = await share();
    const a = await connect(gateway.url);
    const b = await connect(gateway.url);
    const pid = await pidOf(a);

    const blocked = a.callTool({ name: 'block', arguments: {} });
    const settledBlocked = blocked.then(
      () => 'answered',
      () => 'failed',
    );
    await blocking(gateway, 1);
    expect(await echo(b, 'still here')).toBe('still here');
    expect(await echo(a, 'a too')).toBe('a too');

    await terminate(a);
    expect(await settledBlocked).toBe('failed');
    expect(gateway.routes.sessions()).toBe(1);
    expect(alive(pid)).toBe(true);
    expect(await pidOf(b)).toBe(pid);
    expect(await echo(b, 'after a left')).toBe('after a left');

    await terminate(b);
    await gateway.waitForLog((l) => l.msg === 'upstream child stopped' && l.pid === pid);
    expect(alive(pid)).toBe(false);
    expect(gateway.routes.pids()).toEqual([]);
    expect(await gateway.metrics.children.get()).toMatchObject({ values: [{ value: 0 }] });
  });

  it('fails both sessions\' calls with -32000 when the child is killed, and a new session starts a new child', async () => {
    const gateway = await share();
    const a = await connect(gateway.url);
    const b = await connect(gateway.url);
    const pid = await pidOf(a);

    const calls = [a, b].map((c) => c.callTool({ name: 'block', arguments: {} }));
    await blocking(gateway, 2);
    process.kill(pid, 'SIGKILL');
    for (const call of calls) await expect(call).rejects.toMatchObject({ code: -32000, message: expect.stringMatching(/upstream "fixture" exited \(signal SIGKILL/) });
    expect(alive(pid)).toBe(false);

    const c = await connect(gateway.url);
    const newPid = await pidOf(c);
    expect(newPid).not.toBe(pid);
    expect(alive(newPid)).toBe(true);
    expect(await echo(c, 'fresh child')).toBe('fresh child');
    expect(gateway.logs.filter((l) => l.msg === 'upstream child started')).toHaveLength(2);

    await gateway.close();
    expect(alive(newPid)).toBe(false);
  });

  it('routes a sampling request to the session whose call asked for it, and its answer back to the child', async () => {
    const gateway = await startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'], upstream: { share: true } });
    const asked: string[] = [];
    const sampler = async (name: string) => {
      const client = await connectV1(gateway.url, name, { capabilities: { sampling: {} } });
      client.setRequestHandler(CreateMessageRequestSchema, async () => {
        asked.push(name);
        return { model: 'test-model', role: 'assistant', content: { type: 'text', text: `sampled by ${name}` } };
      });
      return client;
    };
    await sampler('a');
    const b = await sampler('b');
    const result = await b.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'weather?', maxTokens: 5 } });
    expect(asked).toEqual(['b']);
    expect(firstText(result)).toContain('sampled by b');
    expect(gateway.routes.pids()).toHaveLength(1);
    expect(gateway.logs.filter((l) => typeof l.msg === 'string' && l.msg.startsWith('share mode'))).toEqual([]);
  });
});
