/**
 * Regression: a stdio child that answered initialize with a result no strict client takes (no protocolVersion,
 * no capabilities or serverInfo, a protocolVersion that is no revision) had it passed on as it came: the SDK
 * clients reject it with a schema error that says nothing of the upstream, and in share mode the child was
 * kept and its garbage replayed to every later session. Now the client gets RETROFIT_ERR_UPSTREAM_PROTOCOL for
 * its initialize, the upstream is counted as faulty, and in share mode the child is stopped (the next session
 * gets a fresh one: regression-share-initialize-timeout-wedges-child).
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs, rawChild } from '../helpers/raw-child.js';
import { post } from './harness.js';

const PROTOCOL_ERROR = { code: -32002, message: 'upstream "fixture" sent an invalid response', data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } };
const INIT = { jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe.each([
  ['an owned session', false],
  ['share mode', true],
])('regression: a garbage InitializeResult from a stdio child, %s', (_label, share) => {
  it.each([
    ['no protocolVersion', { capabilities: {}, serverInfo: { name: 'x', version: '1' } }],
    ['a protocolVersion that is no revision', { protocolVersion: 'latest', capabilities: {}, serverInfo: { name: 'x', version: '1' } }],
    ['no capabilities', { protocolVersion: '2025-06-18', serverInfo: { name: 'x', version: '1' } }],
    ['a serverInfo without a version', { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'x' } }],
    ['an object of something else', { foo: 1 }],
  ])('%s: the client gets UPSTREAM_PROTOCOL for its initialize', async (_shape, result) => {
    const init = `(m, out) => out({ jsonrpc: '2.0', id: m.id, result: ${JSON.stringify(result)} })`;
    const gateway = await startStdioGateway({ args: rawArgs(rawChild('(m, out) => {}', init)), upstream: { share, timeoutMs: 120_000 }, stdio: { killTimeoutMs: 1_000 } });
    const answer = await post(gateway.url, INIT);
    expect(answer.messages).toEqual([{ jsonrpc: '2.0', id: 'init', error: PROTOCOL_ERROR }]);
    expect(gateway.logs.find((l) => l.msg === 'upstream answered with an invalid JSON-RPC response; the client gets an error')).toMatchObject({ method: 'initialize' });
    expect(await gateway.metrics.upstreamErrors.get()).toMatchObject({ values: [{ labels: { kind: 'protocol' }, value: 1 }] });
  });
});
