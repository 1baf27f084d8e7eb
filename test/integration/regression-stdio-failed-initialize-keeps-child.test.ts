/**
 * Regression: a `command:` session whose initialize failed (no answer within timeoutMs, or an error) kept its
 * session and its child until the idle timeout (15 minutes by default), although no client can use it: the
 * client got no session it could go on with. Now the session ends with its initialize, and its child with it.
 */
import { describe, expect, it } from 'vitest';
import { startStdioGateway } from '../helpers/stdio-gateway.js';

const SILENT = 'process.stdin.resume()';
const REFUSES = `require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => { const m = JSON.parse(l); if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, error: { code: -32602, message: 'no' } }) + '\\n'); });`;

async function initialize(url: string): Promise<{ status: number; text: string }> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });
  return { status: answer.status, text: await answer.text() };
}

describe('regression: a failed initialize on a stdio upstream', () => {
  for (const [name, script, code] of [
    ['never answered', SILENT, -32001],
    ['answered with an error', REFUSES, -32602],
  ] as const) {
    it(`${name}: the client gets the error, and the session and its child end at once`, async () => {
      const gateway = await startStdioGateway({ command: process.execPath, args: ['-e', script], upstream: { timeoutMs: 500 } });
      const { text } = await initialize(gateway.url);
      expect(text).toContain(`"code":${code}`);
      await gateway.waitForLog((l) => l.msg === 'upstream child stopped');
      expect(gateway.routes.sessions()).toBe(0);
      expect(gateway.routes.pids()).toEqual([]);
    });
  }
});
