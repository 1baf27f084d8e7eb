/**
 * 2026-07-28 clients in front of stdio upstreams (issue 24): the gateway answers server/discover from the
 * upstream's InitializeResult and serves each request on a pooled upstream session it initialized itself —
 * the v2 client pinned to 2026-07-28 (list, call with object and array roots, progress, sampling through
 * input_required, listen), raw requests for the transport's checks, cancellation when the client closes
 * the stream, a pooled child that dies, the pool's bound, and @ai-sdk/mcp with its defaults.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableHTTPClientTransportV2 } from '@modelcontextprotocol/client';
import { STATELESS_DEFAULTS } from '../../src/config/types.js';
import { EVERYTHING_SERVER, startStdioGateway } from '../helpers/stdio-gateway.js';

const SUBSCRIBABLE_SERVER = fileURLToPath(new URL('../fixtures/servers/subscribable-server.mjs', import.meta.url));

const MODERN = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' } };
const OBJECT_N = { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] };

async function modernClient(url: string, capabilities: Record<string, unknown> = {}): Promise<ClientV2> {
  const client = new ClientV2({ name: 'modern', version: '1.0.0' }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } } as never);
  onTestFinished(() => client.close());
  await client.connect(new StreamableHTTPClientTransportV2(new URL(url)));
  return client;
}

/** One raw 2026-07-28 POST; `headers` replace the defaults derived from the body. */
function post(url: string, body: Record<string, unknown>, headers: Record<string, string | undefined> = {}, signal?: AbortSignal): Promise<Response> {
  const params = (body.params ?? {}) as Record<string, unknown>;
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const all: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': String(body.method),
    ...(name !== undefined && { 'mcp-name': name }),
    ...headers,
  };
  const sent = Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== undefined));
  return fetch(url, { method: 'POST', headers: sent, body: JSON.stringify({ jsonrpc: '2.0', ...body }), ...(signal && { signal }) });
}

describe('2026-07-28 clients in front of a stdio upstream', () => {
  it('discovers, lists and calls on one pooled session, schemas and values natural whatever their root', async () => {
    const gateway = await startStdioGateway({ tools: { echo: { outputSchema: OBJECT_N }, recall: { outputSchema: { type: 'array', items: { type: 'string' } } } } });
    const client = await modernClient(gateway.url);
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const tools = await client.listTools();
    expect(tools.tools.find((t) => t.name === 'recall')?.outputSchema).toEqual({ type: 'array', items: { type: 'string' } });
    expect((await client.callTool({ name: 'echo', arguments: { text: 'it is {"n": 3}' } })).structuredContent).toEqual({ n: 3 });
    await client.callTool({ name: 'remember', arguments: { value: 'a' } });
    expect((await client.callTool({ name: 'recall', arguments: {} })).structuredContent).toEqual(['a']);
    // One request at a time: one child served them all, and it stays for the next.
    expect(gateway.routes.pids()).toHaveLength(1);
    expect(gateway.routes.counts!()).toMatchObject({ pooled: 1, pooledBusy: 0, sessions: 0 });
  });

  it('answers server/discover from the InitializeResult with the revision\'s fields, and every result complete', async () => {
    const gateway = await startStdioGateway();
    const res = await post(gateway.url, { id: 'd1', method: 'server/discover', params: { _meta: META } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result: Record<string, unknown> };
    expect(body.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      capabilities: { tools: expect.any(Object) },
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'stdio-fixture', version: '1.0.0' } },
      ttlMs: 0,
      cacheScope: 'private',
    });
    const list = (await (await post(gateway.url, { id: 2, method: 'tools/list', params: { _meta: META } })).json()) as { id: unknown; result: Record<string, unknown> };
    expect(list).toMatchObject({ id: 2, result: { resultType: 'complete', ttlMs: 0, cacheScope: 'private', tools: expect.any(Array) } });
    const call = (await (await post(gateway.url, { id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: META } })).json()) as { id: unknown; result: Record<string, unknown> };
    expect(call).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'x' }], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'stdio-fixture', version: '1.0.0' } } } });
  });

  it('checks the mirrored headers and the _meta envelope as the revision requires', async () => {
    const gateway = await startStdioGateway();
    const call = { id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, _meta: META } };
    const cases: [Record<string, unknown>, Record<string, string | undefined>, number, number][] = [
      [call, { 'mcp-method': 'tools/list' }, 400, -32020],
      [call, { 'mcp-method': undefined }, 400, -32020],
      [call, { 'mcp-name': undefined }, 400, -32020],
      [call, { 'mcp-name': 'pid' }, 400, -32020],
      [call, { 'mcp-protocol-version': undefined }, 400, -32020],
      [{ ...call, params: { ...call.params, _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': undefined } } }, {}, 400, -32602],
      [{ id: 1, method: 'ping', params: { _meta: META } }, {}, 404, -32601],
      [{ id: 1, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } } }, { 'mcp-protocol-version': '2027-01-01' }, 400, -32022],
    ];
    for (const [body, headers, status, code] of cases) {
      const res = await post(gateway.url, body, headers);
      expect({ body, headers, status: res.status }).toEqual({ body, headers, status });
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(code);
    }
    const unsupported = (await (await post(gateway.url, cases[7]![0], cases[7]![1])).json()) as { error: { data: Record<string, unknown> } };
    expect(unsupported.error.data).toMatchObject({ supported: expect.arrayContaining([MODERN]), requested: '2027-01-01' });
    // Mcp-Name in the revision's Base64 form is decoded before the comparison.
    const encoded = await post(gateway.url, call, { 'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=` });
    expect(encoded.status).toBe(200);
    // A method the upstream does not have: 404 with -32601, as the revision's transport says.
    const unknown = await post(gateway.url, { id: 9, method: 'nope/nothing', params: { _meta: META } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { code: number } }).error.code).toBe(-32601);
    // Nothing above spawned a child except the requests that reached the upstream.
    expect(gateway.routes.pids()).toHaveLength(1);
  });

  it('streams progress, and completes a sampling request through input_required and the client\'s retry', async () => {
    const gateway = await startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'] });
    const client = await modernClient(gateway.url, { sampling: {} });
    const asked: unknown[] = [];
    client.setRequestHandler('sampling/createMessage', async (request) => {
      asked.push(request.params.messages);
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled by the test client' } };
    });
    const progress: number[] = [];
    const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } }, { onprogress: (p) => progress.push(p.progress) });
    expect(long.isError).toBeFalsy();
    expect(progress).toEqual([1, 2]);
    const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'weather?', maxTokens: 5 } });
    expect(asked).toEqual([[{ role: 'user', content: { type: 'text', text: 'Resource trigger-sampling-request context: weather?' } }]]);
    expect(JSON.stringify(sampled.content)).toContain('sampled by the test client');
  });

  it('refuses a server request the client declared no capability for: a tool error, never a hang', async () => {
    const gateway = await startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'] });
    // Initialized with sampling by one client, then asked by one that cannot sample: the pools are apart.
    const sampler = await modernClient(gateway.url, { sampling: {} });
    sampler.setRequestHandler('sampling/createMessage', async () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: 'ok' } }));
    await sampler.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 } });
    const res = await post(gateway.url, { id: 7, method: 'tools/call', params: { name: 'trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 }, _meta: META } });
    const body = (await res.json()) as { result?: { isError?: boolean }; error?: unknown };
    // The tool is not even listed for a client without sampling (its pool's child was initialized without it).
    expect(body.result?.isError === true || body.error !== undefined).toBe(true);
    expect(gateway.routes.counts!()).toMatchObject({ pooled: 2 });
  });

  it('a retry with an unknown requestState gets -32602; one that is taken cannot be used twice', async () => {
    const gateway = await startStdioGateway();
    const res = await post(gateway.url, { id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' }, requestState: 'forged', inputResponses: {}, _meta: META } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: 1, error: { code: -32602, data: { code: 'RETROFIT_ERR_REQUEST_STATE' } } });
  });

  it('cancels the upstream request when the client closes the response stream, and lends that session to nobody else', async () => {
    const gateway = await startStdioGateway();
    const pidOf = async (id: number): Promise<number> => {
      const res = (await (await post(gateway.url, { id, method: 'tools/call', params: { name: 'pid', arguments: {}, _meta: META } })).json()) as { result: { content: [{ text: string }] } };
      return Number(res.result.content[0].text);
    };
    const before = await pidOf(1);
    const controller = new AbortController();
    const blocked = post(gateway.url, { id: 2, method: 'tools/call', params: { name: 'block', arguments: {}, _meta: META } }, {}, controller.signal);
    await gateway.waitForLog((l) => l.line === 'blocking');
    controller.abort();
    await expect(blocked).rejects.toThrow();
    // The upstream may still send messages about the cancelled call: its session is closed (the child with it),
    // and the next request gets a session of its own.
    await gateway.waitForLog((l) => l.msg === 'pooled session closed');
    const echo = await post(gateway.url, { id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'again' }, _meta: META } });
    expect(((await echo.json()) as { result: { content: unknown } }).result.content).toEqual([{ type: 'text', text: 'again' }]);
    expect(await pidOf(4)).not.toBe(before);
    expect(gateway.routes.pids()).toHaveLength(1);
  });

  it('lends a session whose request timed out to nobody else: a late message of it reaches no other client', async () => {
    const gateway = await startStdioGateway({ upstream: { timeoutMs: 1000 } });
    const pidOf = async (id: number): Promise<number> => {
      const res = (await (await post(gateway.url, { id, method: 'tools/call', params: { name: 'pid', arguments: {}, _meta: META } })).json()) as { result: { content: [{ text: string }] } };
      return Number(res.result.content[0].text);
    };
    // The child starts on the first call, and its initialize counts against that call's 1 s: on a loaded machine
    // that first call may time out itself, so it is asked until a child answers.
    let before = NaN;
    await expect.poll(async () => (before = await pidOf(1)), { timeout: 20_000 }).not.toBeNaN();
    const timedOut = await post(gateway.url, { id: 2, method: 'tools/call', params: { name: 'block', arguments: {}, _meta: META } });
    expect(await timedOut.json()).toMatchObject({ id: 2, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_TIMEOUT' } } });
    expect(await pidOf(3)).not.toBe(before);
    expect(gateway.routes.pids()).toHaveLength(1);
  });

  it('replaces a pooled child that died; the request it held gets a clear error', async () => {
    const gateway = await startStdioGateway();
    const first = (await (await post(gateway.url, { id: 1, method: 'tools/call', params: { name: 'pid', arguments: {}, _meta: META } })).json()) as { result: { content: [{ text: string }] } };
    const pid = Number(first.result.content[0].text);
    const blocked = post(gateway.url, { id: 2, method: 'tools/call', params: { name: 'block', arguments: {}, _meta: META } });
    await gateway.waitForLog((l) => l.line === 'blocking');
    process.kill(pid, 'SIGKILL');
    const failed = await blocked;
    expect(failed.status).toBe(200);
    expect(await failed.json()).toMatchObject({ id: 2, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_EXITED' } } });
    const again = (await (await post(gateway.url, { id: 3, method: 'tools/call', params: { name: 'pid', arguments: {}, _meta: META } })).json()) as { result: { content: [{ text: string }] } };
    expect(Number(again.result.content[0].text)).not.toBe(pid);
    expect(gateway.routes.pids()).toHaveLength(1);
  });

  it('holds at most poolSize sessions: a request finding all busy waits, then gets 503 past timeoutMs', async () => {
    const gateway = await startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'], upstream: { timeoutMs: 3000, stateless: { ...STATELESS_DEFAULTS, poolSize: 1 } } });
    // The pooled child (a package's server) starts on the first call, and its initialize counts against that
    // call's timeoutMs: start it with a call of its own, so a loaded machine cannot fail the long call instead.
    await expect.poll(async () => (await post(gateway.url, { id: 0, method: 'tools/call', params: { name: 'echo', arguments: { message: 'warm' }, _meta: META } })).status, { timeout: 20_000 }).toBe(200);
    // Progress every 200 ms keeps the long call alive past timeoutMs; the one waiting for its session is not.
    const long = post(gateway.url, { id: 1, method: 'tools/call', params: { name: 'trigger-long-running-operation', arguments: { duration: 5, steps: 25 }, _meta: { ...META, progressToken: 'p' } } });
    await expect.poll(() => gateway.routes.counts!().pooledBusy, { timeout: 10_000 }).toBe(1);
    const waiting = await post(gateway.url, { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'x' }, _meta: META } });
    expect(waiting.status).toBe(503);
    expect(await waiting.json()).toMatchObject({ id: 2, error: { data: { code: 'RETROFIT_ERR_UPSTREAM_BUSY' } } });
    const done = await long;
    expect(done.headers.get('content-type')).toBe('text/event-stream');
    const events = (await done.text()).split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    expect(events.filter((e) => e.method === 'notifications/progress')).toHaveLength(25);
    expect(events.at(-1)).toMatchObject({ id: 1, result: { resultType: 'complete' } });
    expect(gateway.routes.pids()).toHaveLength(1);
  });

  it('subscriptions/listen: acknowledged, then tools/list_changed after a reload, keep-alives between', async () => {
    const gateway = await startStdioGateway({ stdio: { keepAliveMs: 50 } });
    const client = await modernClient(gateway.url);
    const changed: unknown[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', (n) => void changed.push(n));
    const subscription = await client.listen({ toolsListChanged: true, promptsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    expect(gateway.routes.notifyToolsChanged()).toBe(1);
    await expect.poll(() => changed.length).toBe(1);
    await subscription.close();
    await expect.poll(() => gateway.routes.counts!().listeners).toBe(0);
  });
});

describe('subscriptions/listen: resource subscriptions', () => {
  it('subscribes the upstream once per URI on a session of its own, delivers updates by URI, unsubscribes when the last listener leaves', async () => {
    const gateway = await startStdioGateway({ name: 'subs', args: [SUBSCRIBABLE_SERVER] });
    const first = await modernClient(gateway.url);
    const second = await modernClient(gateway.url);
    const updates: { who: string; uri: string }[] = [];
    first.setNotificationHandler('notifications/resources/updated', (n) => void updates.push({ who: 'first', uri: n.params.uri }));
    second.setNotificationHandler('notifications/resources/updated', (n) => void updates.push({ who: 'second', uri: n.params.uri }));
    const a = await first.listen({ resourceSubscriptions: ['mem://a'], toolsListChanged: true });
    expect(a.honoredFilter).toEqual({ resourceSubscriptions: ['mem://a'], toolsListChanged: true });
    await expect.poll(() => updates).toEqual([{ who: 'first', uri: 'mem://a' }]);
    const b = await second.listen({ resourceSubscriptions: ['mem://a', 'mem://b'] });
    expect(b.honoredFilter).toEqual({ resourceSubscriptions: ['mem://a', 'mem://b'] });
    // mem://a was subscribed already (no second subscribe, no second update); mem://b is new.
    await expect.poll(() => updates.length).toBe(2);
    expect(updates[1]).toEqual({ who: 'second', uri: 'mem://b' });
    // Reads go to the pool's other sessions while one holds the subscriptions.
    expect((await first.readResource({ uri: 'mem://b' })).contents).toEqual([{ uri: 'mem://b', text: 'contents of mem://b' }]);
    expect(gateway.routes.counts!()).toMatchObject({ pooled: 2, pooledBusy: 1 });
    await a.close();
    await b.close();
    await gateway.waitForLog((l) => l.line === 'unsubscribed mem://b');
    await gateway.waitForLog((l) => l.line === 'unsubscribed mem://a');
    await expect.poll(() => gateway.routes.counts!().pooledBusy).toBe(0);
  });
});

describe('2026-07-28 clients: what the revision asks of a server, on behalf of session-era upstreams', () => {
  it('an unknown revision in _meta, even one that is no date, gets 400 / -32022 listing the served ones', async () => {
    const gateway = await startStdioGateway();
    const meta = { ...META, 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' };
    const res = await post(gateway.url, { id: 1, method: 'server/discover', params: { _meta: meta } }, { 'mcp-protocol-version': 'v999.0.0' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: 1, error: { code: -32022, data: { supported: expect.arrayContaining([MODERN]), requested: 'v999.0.0' } } });
    expect(gateway.routes.pids()).toEqual([]);
  });

  it('an upstream\'s -32021 reaches the client with 400, as the revision requires', async () => {
    const gateway = await startStdioGateway({ name: 'subs', args: [SUBSCRIBABLE_SERVER] });
    const res = await post(gateway.url, { id: 2, method: 'tools/call', params: { name: 'needs-sampling', arguments: {}, _meta: META } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ id: 2, error: { code: -32021, data: { requiredCapabilities: { sampling: {} } } } });
  });

  it('log messages reach a request\'s client only at or above its _meta logLevel, none without one', async () => {
    const gateway = await startStdioGateway({ name: 'subs', args: [SUBSCRIBABLE_SERVER] });
    const levels = async (logLevel?: string): Promise<unknown[]> => {
      const meta = logLevel === undefined ? META : { ...META, 'io.modelcontextprotocol/logLevel': logLevel };
      const res = await post(gateway.url, { id: 3, method: 'tools/call', params: { name: 'log', arguments: {}, _meta: meta } });
      const text = await res.text();
      const messages = res.headers.get('content-type') === 'text/event-stream' ? text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>) : [JSON.parse(text) as Record<string, unknown>];
      expect(messages.at(-1)).toMatchObject({ id: 3, result: { content: [{ type: 'text', text: 'logged' }] } });
      return messages.filter((m) => m.method === 'notifications/message').map((m) => (m.params as { level: string }).level);
    };
    expect(await levels()).toEqual([]);
    expect(await levels('info')).toEqual(['info', 'error']);
    expect(await levels('debug')).toEqual(['debug', 'info', 'error']);
  });

  it('a request waiting for its client\'s retry gives its pooled session up to a request that needs one; the late retry gets -32602', async () => {
    const gateway = await startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'], upstream: { stateless: { ...STATELESS_DEFAULTS, poolSize: 1 } } });
    const sampling = { ...META, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    const first = await post(gateway.url, { id: 1, method: 'tools/call', params: { name: 'trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 }, _meta: sampling } });
    const asked = (await first.json()) as { result: { resultType: string; requestState: string; inputRequests: Record<string, { method: string }> } };
    expect(asked.result.resultType).toBe('input_required');
    expect(Object.values(asked.result.inputRequests).map((r) => r.method)).toEqual(['sampling/createMessage']);
    // The only session waits for that retry; another client's request takes it over at once.
    const other = await post(gateway.url, { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hi' }, _meta: META } });
    expect(other.status).toBe(200);
    expect(((await other.json()) as { result: { content: unknown } }).result.content).toEqual([{ type: 'text', text: 'Echo: hi' }]);
    const key = Object.keys(asked.result.inputRequests)[0]!;
    const retry = await post(gateway.url, { id: 3, method: 'tools/call', params: { name: 'trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 }, requestState: asked.result.requestState, inputResponses: { [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'late' } } }, _meta: sampling } });
    expect(retry.status).toBe(400);
    expect(await retry.json()).toMatchObject({ id: 3, error: { code: -32602, data: { code: 'RETROFIT_ERR_REQUEST_STATE' } } });
  });
});

describe('2026-07-28 clients: a retry whose answers are not results', () => {
  it('gets 400 -32602 RETROFIT_ERR_INPUT_RESPONSES at once, and its requestState stays good for a corrected retry', async () => {
    const gateway = await startStdioGateway({ name: 'everything', args: [EVERYTHING_SERVER, 'stdio'] });
    const sampling = { ...META, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    const call = { name: 'trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 } };
    const first = await post(gateway.url, { id: 1, method: 'tools/call', params: { ...call, _meta: sampling } });
    const asked = (await first.json()) as { result: { requestState: string; inputRequests: Record<string, unknown> } };
    const key = Object.keys(asked.result.inputRequests)[0]!;
    for (const [id, inputResponses] of [[2, { [key]: 'garbage' }], [3, { [key]: null }], [4, { [key]: [1] }], [5, 'garbage']] as const) {
      // Before, the string went upstream as a result its SDK never accepts, and the client waited for timeoutMs.
      const bad = await post(gateway.url, { id, method: 'tools/call', params: { ...call, requestState: asked.result.requestState, inputResponses, _meta: sampling } });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ id, error: { code: -32602, data: { code: 'RETROFIT_ERR_INPUT_RESPONSES' } } });
    }
    const good = await post(gateway.url, { id: 6, method: 'tools/call', params: { ...call, requestState: asked.result.requestState, inputResponses: { [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'fine' } } }, _meta: sampling } });
    const text = await good.text();
    expect(text).not.toContain('notifications/cancelled');
    expect(JSON.parse(text)).toMatchObject({ id: 6, result: { resultType: 'complete' } });
  });
});

describe('2026-07-28 clients: a request in line for a pooled session', () => {
  it('gets the session of a request that starts waiting for its client\'s retry after it lined up', async () => {
    const gateway = await startStdioGateway({ upstream: { timeoutMs: 10_000, stateless: { ...STATELESS_DEFAULTS, poolSize: 1 } } });
    const sampling = { ...META, 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } };
    // Warm the one session, so the next request is lent it at once.
    await (await post(gateway.url, { id: 0, method: 'tools/call', params: { name: 'echo', arguments: { text: 'warm' }, _meta: META } })).json();
    const first = post(gateway.url, { id: 1, method: 'tools/call', params: { name: 'ask-later', arguments: { ms: 2500 }, _meta: sampling } });
    await expect.poll(() => gateway.routes.counts!().pooledBusy).toBe(1);
    // The one session is busy (its tool has not asked yet): this request lines up.
    const other = post(gateway.url, { id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta: META } });
    // The tool asks after 2.5 s: time enough, on a loaded machine too, for the second request to line up first.
    await expect.poll(() => gateway.routes.counts!().poolWaiting, { timeout: 2000 }).toBe(1);
    const asked = (await (await first).json()) as { result: { resultType: string } };
    expect(asked.result.resultType).toBe('input_required');
    // Once the first only waits for its client, the request in line takes its session (not a 503 at timeoutMs).
    const answered = await other;
    expect(answered.status).toBe(200);
    expect(((await answered.json()) as { result: { content: unknown } }).result.content).toEqual([{ type: 'text', text: 'hi' }]);
  });
});

describe('client libraries with their defaults, 2026-07-28 served', () => {
  it('@ai-sdk/mcp connects at 2026-07-28, lists and gets the validated structured value', async () => {
    const { createMCPClient } = await import('@ai-sdk/mcp');
    const { z } = await import('zod');
    const gateway = await startStdioGateway({ tools: { echo: { outputSchema: OBJECT_N } } });
    const client = await createMCPClient({ transport: { type: 'http', url: gateway.url } });
    onTestFinished(() => client.close());
    const tools = await client.tools({ schemas: { echo: { inputSchema: z.object({ text: z.string() }), outputSchema: z.object({ n: z.number() }) } } });
    const value = await tools.echo!.execute!({ text: 'The answer is {"n": 3}, as computed.' }, { toolCallId: 'c1', messages: [], context: {} });
    expect(value).toEqual({ n: 3 });
    const requests = (await gateway.metrics.requests.get()).values.map((v) => v.labels);
    expect(requests).toContainEqual({ upstream: 'fixture', method: 'server/discover', status: 200 });
    expect(requests).not.toContainEqual(expect.objectContaining({ method: 'initialize' }));
  });
});
