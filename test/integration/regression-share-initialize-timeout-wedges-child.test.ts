/**
 * Regression: with `share: true`, a child that never answered its first initialize wedged the upstream for
 * good — the session that asked timed out (and the child was sent notifications/cancelled for the initialize,
 * which the spec forbids), every later initialize was held behind the first, which stayed pending for ever,
 * and each of those sessions timed out in turn. An error or an over-long answer to that first initialize left
 * the same child to be asked again. Now a shared child that fails its first initialize — no answer within
 * timeoutMs, an error answer, an answer over maxResultBytes — is stopped: every session waiting on that
 * initialize gets a JSON-RPC error, and the next session gets a fresh child. Initialize is never cancelled. A
 * result no strict client takes (no protocolVersion, say) fails it the same way: it is not cached and replayed.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { alive, startStdioGateway } from '../helpers/stdio-gateway.js';
import { rawArgs } from '../helpers/raw-child.js';
import { openSession, post, type Answer } from '../hostile/harness.js';

const INIT = (id: string) => ({ jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: id, version: '1' } } });

/**
 * A child that tells on stderr what it gets. The first one started in `dir` (it leaves its pid there) fails its
 * initialize as `failure` says, once the test writes `dir/go`; the ones after it are healthy.
 */
function script(dir: string, failure: 'silent' | 'error' | 'huge' | 'garbage'): string {
  return `
    const fs = require('node:fs');
    const pidFile = ${JSON.stringify(join(dir, 'first.pid'))};
    const first = !fs.existsSync(pidFile);
    if (first) fs.writeFileSync(pidFile, String(process.pid));
    const out = (v) => process.stdout.write(JSON.stringify(v) + '\\n');
    const fail = (m) => {
      if (${JSON.stringify(failure)} === 'error') out({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message: 'cannot start' } });
      if (${JSON.stringify(failure)} === 'garbage') out({ jsonrpc: '2.0', id: m.id, result: { capabilities: {}, serverInfo: { name: 'x', version: '1' } } });
      if (${JSON.stringify(failure)} === 'huge') out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'x'.repeat(100000), version: '1' } } });
    };
    require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
      const m = JSON.parse(line);
      process.stderr.write('got ' + m.method + '\\n');
      if (m.method === 'initialize' && first) {
        const go = setInterval(() => { if (fs.existsSync(${JSON.stringify(join(dir, 'go'))})) { clearInterval(go); fail(m); } }, 10);
        return;
      }
      if (m.method === 'initialize') return out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'fresh', version: '1' } } });
      if (m.id !== undefined && m.method) out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: String(process.pid) }] } });
    });`;
}

function errorOf(answer: Answer, id: string): unknown {
  return answer.messages.find((m) => m.id === id)?.error;
}

describe('regression: a shared child that fails its first initialize', () => {
  it.each([
    ['never answers it (timeoutMs)', 'silent', { code: -32001, message: 'upstream "fixture" did not answer within 3000ms', data: { code: 'RETROFIT_ERR_UPSTREAM_TIMEOUT' } }],
    ['answers it with an error', 'error', { code: -32603, message: 'cannot start' }],
    ['answers it over maxResultBytes', 'huge', { code: -32003, message: 'upstream "fixture" sent a result larger than 65536 bytes', data: { code: 'RETROFIT_ERR_RESULT_TOO_LARGE' } }],
    ['answers it with a result no strict client takes', 'garbage', { code: -32002, message: 'upstream "fixture" sent an invalid response', data: { code: 'RETROFIT_ERR_UPSTREAM_PROTOCOL' } }],
  ] as const)('%s: every waiting session gets an error, the child is stopped, the next session gets a fresh one', async (_label, failure, expected) => {
    const dir = mkdtempSync(join(tmpdir(), 'share-init-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const gateway = await startStdioGateway({ args: rawArgs(script(dir, failure)), maxResultBytes: 65_536, upstream: { share: true, timeoutMs: 3_000 }, stdio: { killTimeoutMs: 1_000 } });

    // A asks the child; B arrives while A's initialize is in flight and waits for it.
    const a = post(gateway.url, INIT('a'));
    await gateway.waitForLog((l) => l.line === 'got initialize');
    const b = post(gateway.url, INIT('b'));
    // B's session exists once its initialize went to the shared child's ids (the same tick): it waits.
    await vi.waitFor(() => expect(gateway.routes.sessions()).toBe(2));
    const firstPid = Number(readFileSync(join(dir, 'first.pid'), 'utf8'));
    // Now that B waits too, the first child fails (the silent one never answers: A's deadline fails it).
    if (failure !== 'silent') writeFileSync(join(dir, 'go'), '');

    expect(errorOf(await a, 'a')).toEqual(expected);
    expect(errorOf(await b, 'b')).toEqual(expected);

    // The next session gets a fresh child, which answers.
    const c = await openSession(gateway.url);
    const call = await post(gateway.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'pid', arguments: {} } }, { 'mcp-session-id': c, 'mcp-protocol-version': '2025-06-18' });
    const pid = Number((call.messages[0]?.result as { content: { text: string }[] }).content[0]!.text);
    expect(pid).not.toBe(firstPid);
    expect(gateway.routes.pids()).toEqual([pid]);

    // The failed one was stopped, and never sent a cancellation of its initialize.
    await gateway.waitForLog((l) => l.msg === 'upstream child stopped' && l.pid === firstPid);
    expect(alive(firstPid)).toBe(false);
    expect(gateway.logs.find((l) => l.msg === 'share mode: the child failed its first initialize; it is stopped, and the next session starts a new one')).toBeDefined();
    expect(gateway.logs.filter((l) => l.line === 'got notifications/cancelled')).toEqual([]);
  });
});
