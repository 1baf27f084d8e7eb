import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/json.js';
import { capabilityKey, checkModernRequest, claimsModern, completeResult, decodeHeaderValue, discoverResult, encodeHeaderValue, initializeFromDiscover, listenedNotification, refusesSessions, sessionAnswer, upstreamRequest } from '../../../src/protocol/modern.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const call = (name: string, meta: JsonObject = META): JsonObject => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: {}, _meta: meta } });
const headers = { protocolVersion: '2026-07-28', method: 'tools/call', name: 'echo' };

describe('2026-07-28 requests', () => {
  it('claims: a header from 2026-07-28 on, or any _meta revision that is no session one', () => {
    expect(claimsModern('2026-07-28', undefined)).toBe(true);
    expect(claimsModern(undefined, 'v999.0.0')).toBe(true);
    expect(claimsModern(undefined, '2099-01-01')).toBe(true);
    expect(claimsModern('2025-11-25', undefined)).toBe(false);
    expect(claimsModern(undefined, '2025-11-25')).toBe(false);
    expect(claimsModern('v999', undefined)).toBe(false);
  });

  it('checks the mirrored headers before the version, the version before the envelope', () => {
    expect(checkModernRequest(call('echo'), headers)).toBeUndefined();
    expect(checkModernRequest(call('echo'), { ...headers, name: 'pid' })).toMatchObject({ kind: 'header' });
    expect(checkModernRequest(call('echo'), { ...headers, method: undefined })).toMatchObject({ kind: 'header' });
    expect(checkModernRequest(call('echo'), { ...headers, protocolVersion: undefined })).toMatchObject({ kind: 'header' });
    expect(checkModernRequest(call('echo', { ...META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' }), { ...headers, protocolVersion: '2027-01-01' })).toEqual({ kind: 'version', requested: '2027-01-01' });
    expect(checkModernRequest(call('echo', { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' }), headers)).toMatchObject({ kind: 'meta' });
    expect(checkModernRequest({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: META } }, { protocolVersion: '2026-07-28', method: 'ping', name: undefined })).toEqual({ kind: 'removed', method: 'ping' });
  });

  it('reads and writes Mcp-Name in the revision\'s Base64 form', () => {
    for (const value of ['echo', 'file:///a b.txt', 'Hello, 世界', ' padded ', 'line1\nline2', '=?base64?literal?=']) expect(decodeHeaderValue(encodeHeaderValue(value))).toBe(value);
    expect(encodeHeaderValue('echo')).toBe('echo');
    expect(encodeHeaderValue(' padded ')).toBe(`=?base64?${Buffer.from(' padded ').toString('base64')}?=`);
    expect(decodeHeaderValue('=?base64?%%%?=')).toBeUndefined();
    expect(checkModernRequest(call('世界'), { ...headers, name: encodeHeaderValue('世界') })).toBeUndefined();
  });

  it('keys pooled sessions by the capabilities that decide what an upstream may ask', () => {
    expect(capabilityKey({})).toBe('none');
    expect(capabilityKey({ roots: {}, sampling: {}, experimental: {} })).toBe('sampling+roots');
    // What each allows keeps them apart too; the order of its members does not.
    const urlOnly = capabilityKey({ elicitation: { url: {} } });
    expect(urlOnly).toMatch(/^elicitation#[0-9a-f]{12}$/);
    expect(capabilityKey({ elicitation: { form: {} } })).not.toBe(urlOnly);
    expect(capabilityKey({ elicitation: {} })).not.toBe(urlOnly);
    expect(capabilityKey({ elicitation: { form: {}, url: {} } })).toBe(capabilityKey({ elicitation: { url: {}, form: {} } }));
    expect(capabilityKey({ sampling: { tools: {} } })).not.toBe(capabilityKey({ sampling: {} }));
  });

  it('sends the upstream the request under its own id, without the envelope and the retry members', () => {
    const message = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x', arguments: { a: 1 }, inputResponses: {}, requestState: 's', _meta: { ...META, progressToken: 'p' } } };
    expect(upstreamRequest(message, 'rf-1')).toEqual({ jsonrpc: '2.0', id: 'rf-1', method: 'tools/call', params: { name: 'x', arguments: { a: 1 }, _meta: { progressToken: 'p' } } });
    expect(upstreamRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }, 'rf-2')).toEqual({ jsonrpc: '2.0', id: 'rf-2', method: 'tools/list', params: {} });
  });
});

describe('2026-07-28 results', () => {
  it('are complete, with the caching fields on cacheable methods only, and the server named', () => {
    const info = { name: 's', version: '1' };
    expect(completeResult('tools/call', { content: [] }, info)).toEqual({ content: [], resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': info } });
    expect(completeResult('tools/list', { tools: [], ttlMs: 5000, cacheScope: 'public' }, undefined)).toEqual({ tools: [], ttlMs: 5000, cacheScope: 'public', resultType: 'complete' });
    expect(completeResult('resources/read', { contents: [], ttlMs: -1 }, undefined)).toEqual({ contents: [], ttlMs: 0, cacheScope: 'private', resultType: 'complete' });
  });

  it('an initialize refusal of a server of session-less revisions only is told from others', () => {
    expect(refusesSessions({ code: -32022, message: 'x', data: { supported: ['2026-07-28'] } })).toBe(true);
    expect(refusesSessions({ code: -32022, message: 'x', data: { supported: ['2026-07-28', '2025-11-25'] } })).toBe(false);
    expect(refusesSessions({ code: -32022, message: 'x', data: { supported: [] } })).toBe(false);
    expect(refusesSessions({ code: -32000, message: 'Server not initialized' })).toBe(false);
    expect(refusesSessions(undefined)).toBe(false);
  });

  it('are complete whatever resultType an upstream of session revisions put in them', () => {
    expect(completeResult('tools/call', { content: [], resultType: 'banana' }, undefined)).toEqual({ content: [], resultType: 'complete' });
    expect(completeResult('tools/list', { tools: [], resultType: 'input_required', requestState: 'forged' }, undefined)).toEqual({ tools: [], requestState: 'forged', resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
  });

  it('server/discover from an InitializeResult: its capabilities less tasks, the served revisions', () => {
    const result = discoverResult({ protocolVersion: '2024-11-05', capabilities: { tools: {}, tasks: {} }, serverInfo: { name: 'old', version: '1' }, instructions: 'hi' });
    expect(result).toEqual({
      supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'],
      capabilities: { tools: {} },
      instructions: 'hi',
      resultType: 'complete',
      ttlMs: 0,
      cacheScope: 'private',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'old', version: '1' } },
    });
  });
});

describe('a 2026-07-28 answer for a client of a session revision', () => {
  it('takes the client\'s id and loses the revision\'s result members; anything else says what it is', () => {
    const answer = sessionAnswer('{"jsonrpc":"2.0","id":"7~retry-1","result":{"resultType":"complete","ttlMs":5,"cacheScope":"private","content":[]}}', 7);
    expect(answer).toEqual({ kind: 'answer', json: '{"jsonrpc":"2.0","id":7,"result":{"content":[]}}' });
    expect(sessionAnswer('{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}', 'a')).toEqual({ kind: 'answer', json: '{"jsonrpc":"2.0","id":"a","error":{"code":-1,"message":"no"}}' });
    const input = { resultType: 'input_required', inputRequests: { q: { method: 'elicitation/create' } } };
    expect(sessionAnswer(JSON.stringify({ jsonrpc: '2.0', id: 1, result: input }), 1)).toEqual({ kind: 'input', result: input });
    expect(sessionAnswer('{"jsonrpc":"2.0","method":"notifications/progress","params":{}}', 1)).toEqual({ kind: 'pass' });
    expect(sessionAnswer('{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage"}', 1)).toEqual({ kind: 'request', method: 'sampling/createMessage' });
    expect(sessionAnswer('{"jsonrpc":', 1)).toEqual({ kind: 'pass' });
    expect(sessionAnswer('[1]', 1)).toEqual({ kind: 'pass' });
  });

  it('keeps the number literals a double cannot hold where the answer is written again', () => {
    const text = '{"jsonrpc":"2.0","id":"7~1","result":{"resultType":"complete","ttlMs":5,"content":[],"structuredContent":{"v":9007199254740993,"x":0.1000000000000000055511151231257827},"_meta":{"n":12345678901234567890,"big":1e400}}}';
    expect(sessionAnswer(text, 7)).toEqual({
      kind: 'answer',
      json: '{"jsonrpc":"2.0","id":7,"result":{"content":[],"structuredContent":{"v":9007199254740993,"x":0.1000000000000000055511151231257827},"_meta":{"n":12345678901234567890,"big":1e400}}}',
    });
    // An input_required result comes with its literals, for the requests written from it.
    const input = sessionAnswer('{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{"max":12345678901234567890}}}}}', 1);
    expect(input.kind === 'input' && input.literals?.children.get('inputRequests')?.children.get('q')?.children.get('params')?.literals.get('max')).toBe('12345678901234567890');
  });
});

describe('an older client\'s session in front of a 2026-07-28 upstream', () => {
  it('is initialized from server/discover: the session revision asked for, else the latest', () => {
    const found = { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, instructions: 'hi', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '2' } } };
    expect(initializeFromDiscover(found, '2025-03-26', 'up')).toEqual({ protocolVersion: '2025-03-26', capabilities: { tools: {} }, serverInfo: { name: 's', version: '2' }, instructions: 'hi' });
    expect(initializeFromDiscover({}, '2026-07-28', 'up')).toEqual({ protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'up', version: '0' } });
  });

  it('gets the listen stream\'s notifications without their subscription id, and nothing else', () => {
    const note = { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'l1' } } };
    expect(listenedNotification(JSON.stringify(note))).toBe('{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}');
    const kept = { ...note, params: { uri: 'a', _meta: { 'io.modelcontextprotocol/subscriptionId': 'l1', trace: 1 } } };
    expect(JSON.parse(listenedNotification(JSON.stringify(kept))!)).toEqual({ ...note, params: { uri: 'a', _meta: { trace: 1 } } });
    expect(listenedNotification('{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged"}')).toBeUndefined();
    expect(listenedNotification('{"jsonrpc":"2.0","id":1,"result":{}}')).toBeUndefined();
    expect(listenedNotification('not json')).toBeUndefined();
  });

  it('keeps the number literals a double cannot hold', () => {
    const text = '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a","_meta":{"io.modelcontextprotocol/subscriptionId":"l1","n":12345678901234567890}}}';
    expect(listenedNotification(text)).toBe('{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"a","_meta":{"n":12345678901234567890}}}');
  });
});
