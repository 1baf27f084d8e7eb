/**
 * Bad client input, for an HTTP upstream (a real v1 SDK server) and a stdio upstream (a real child): every
 * hostile body gets a status and a JSON-RPC error, and afterwards the process and another session, opened
 * before the attack, carry on.
 */
import { describe, expect, it } from 'vitest';
import { echoCall, echoed, openSession, post, sessionHeaders, startTarget, type Answer, type Target, type TargetKind } from './harness.js';
import { DEFAULT_LIMITS } from '../../src/config/types.js';

function rpcError(answer: Answer): { code?: unknown; data?: { code?: unknown } } | undefined {
  return answer.messages[0]?.error as { code?: unknown; data?: { code?: unknown } } | undefined;
}

/** The bystander session still gets its own answers. */
async function bystanderWorks(target: Target, session: string, tag: string): Promise<void> {
  const answer = await post(target.url, echoCall(`by-${tag}`, tag), sessionHeaders(session));
  expect(answer.status).toBe(200);
  expect(answer.messages.find((m) => m.id === `by-${tag}`)).toMatchObject({ result: { content: [{ text: tag }] } });
}

describe.each<TargetKind>(['http', 'stdio'])('hostile client input, %s upstream', (kind) => {
  it('rejects bodies that are not JSON-RPC over JSON with 4xx and a JSON-RPC error, and carries on', async () => {
    const target = await startTarget(kind, { limits: { ...DEFAULT_LIMITS, maxRequestBytes: 64 * 1024, maxResultBytes: 1024 * 1024 } });
    const bystander = await openSession(target.url, 'bystander');
    const session = await openSession(target.url);
    const h = sessionHeaders(session);

    const notJson = await post(target.url, 'this is not json', h);
    expect(notJson.status).toBe(400);
    expect(rpcError(notJson)).toMatchObject({ code: -32700 });

    const empty = await post(target.url, '', h);
    expect(empty.status).toBe(400);
    expect(rpcError(empty)).toMatchObject({ code: -32700 });

    const wrongType = await post(target.url, JSON.stringify(echoCall(1, 'x')), { ...h, 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(rpcError(wrongType)).toMatchObject({ code: -32600, data: { code: 'RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE' } });

    const huge = await post(target.url, JSON.stringify(echoCall(2, 'y'.repeat(1024 * 1024))), h);
    expect(huge.status).toBe(413);
    expect(rpcError(huge)).toMatchObject({ code: -32600, data: { code: 'RETROFIT_ERR_BODY_TOO_LARGE' } });

    // A truncated body (a client that died mid-write) is a parse error, not a hang.
    const truncated = await post(target.url, JSON.stringify(echoCall(3, 'z')).slice(0, 30), h);
    expect(truncated.status).toBe(400);
    expect(rpcError(truncated)).toMatchObject({ code: -32700 });

    await bystanderWorks(target, bystander, 'after-garbage');
    await bystanderWorks(target, session, 'same-session');
  });

  it('answers a request without an acceptable Accept header with 406', async () => {
    const target = await startTarget(kind);
    const session = await openSession(target.url);
    const answer = await post(target.url, echoCall(1, 'x'), { ...sessionHeaders(session), accept: 'text/html' });
    expect(answer.status).toBe(406);
    expect(rpcError(answer)).toMatchObject({ code: expect.any(Number) });
    await bystanderWorks(target, session, 'after-406');
  });

  it('survives 100k levels of nesting in a body and in arguments', async () => {
    const target = await startTarget(kind);
    const session = await openSession(target.url);
    const h = sessionHeaders(session);
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);

    const body = await post(target.url, deep, h);
    expect(body.status).toBeGreaterThanOrEqual(400);
    expect(body.status).toBeLessThan(500);

    const args = await post(target.url, `{"jsonrpc":"2.0","id":"deep","method":"tools/call","params":{"name":"echo","arguments":{"text":"t","x":${deep}}}}`, h);
    expect(args.status).toBeLessThan(500);

    await bystanderWorks(target, session, 'after-deep');
  });

  it('passes invalid UTF-8 on without crashing, and keeps the session', async () => {
    const target = await startTarget(kind);
    const session = await openSession(target.url);
    const json = Buffer.from(JSON.stringify(echoCall('utf8', 'AB')));
    const at = json.indexOf('AB');
    // "A\xff\xfeB": bytes that are not UTF-8 inside a string.
    const bad = Buffer.concat([json.subarray(0, at + 1), Buffer.from([0xff, 0xfe]), json.subarray(at + 1)]);
    const answer = await post(target.url, new Uint8Array(bad), sessionHeaders(session));
    expect(answer.status).toBe(200);
    expect(echoed(answer.messages.find((m) => m.id === 'utf8'))).toBe('A\ufffd\ufffdB');
    await bystanderWorks(target, session, 'after-utf8');
  });

  it('answers unknown methods with -32601 and a mixed-garbage batch without failing the process', async () => {
    const target = await startTarget(kind);
    const session = await openSession(target.url);
    const h = sessionHeaders(session);
    const unknown = await post(target.url, { jsonrpc: '2.0', id: 'u', method: 'no/such/method', params: {} }, h);
    expect(unknown.status).toBe(200);
    expect(unknown.messages.find((m) => m.id === 'u')).toMatchObject({ error: { code: -32601 } });

    const batch = await post(target.url, [1, 'x', null, {}, { jsonrpc: '2.0' }, echoCall('b', 'in-batch')], h);
    expect(batch.status).toBeGreaterThanOrEqual(200);
    expect(batch.status).toBeLessThan(500);
    await bystanderWorks(target, session, 'after-batch');
  });

  it('keeps ids of every JSON type apart, and refuses ids that are not string or number', async () => {
    const target = await startTarget(kind);
    const session = await openSession(target.url);
    const h = sessionHeaders(session);
    for (const id of ['s', '', '1', 7, 0, -1, 2 ** 53 - 1, 'ü✓']) {
      const answer = await post(target.url, echoCall(id, `id ${String(id)}`), h);
      expect(answer.status).toBe(200);
      expect(answer.messages).toEqual([expect.objectContaining({ id, result: expect.objectContaining({ content: [{ type: 'text', text: `id ${String(id)}` }] }) })]);
    }
    // Fractions: JSON-RPC says ids SHOULD NOT have them, and the SDK servers refuse them.
    for (const id of [true, { a: 1 }, [1], 1.5]) {
      const answer = await post(target.url, echoCall(id, 'bad id'), h);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    }
    await bystanderWorks(target, session, 'after-ids');
  });

  it('answers both of two requests with the same id in flight on one session, or refuses the second', async () => {
    const target = await startTarget(kind);
    const session = await openSession(target.url);
    const h = sessionHeaders(session);
    const [a, b] = await Promise.all([post(target.url, echoCall(42, 'first'), h), post(target.url, echoCall(42, 'second'), h)]);
    for (const answer of [a, b]) {
      // Each POST ends with an answer for id 42 (its own result, or a JSON-RPC error): never a hang.
      if (answer.status === 200) expect(answer.messages.find((m) => m.id === 42)).toBeDefined();
      else expect(answer.status).toBe(409);
    }
    expect([echoed(a.messages[0]), echoed(b.messages[0])]).toContain('first');
    await bystanderWorks(target, session, 'after-duplicate');
  });

  it('tolerates Mcp-Method, Mcp-Name and MCP-Protocol-Version headers that disagree with the body', async () => {
    const target = await startTarget(kind);
    const session = await openSession(target.url);
    const h = sessionHeaders(session);
    const lying = await post(target.url, echoCall('lie', 'truth'), { ...h, 'mcp-method': 'tools/list', 'mcp-name': 'other', 'mcp-protocol-version': '2025-06-18' });
    expect(lying.status).toBe(200);
    expect(echoed(lying.messages.find((m) => m.id === 'lie'))).toBe('truth');
    const bogus = await post(target.url, echoCall('v', 'x'), { ...h, 'mcp-protocol-version': '1999-01-01' });
    expect(bogus.status).toBe(400);
    await bystanderWorks(target, session, 'after-headers');
  });
});
