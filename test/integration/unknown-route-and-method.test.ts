/**
 * Bad input always gets a JSON-RPC error: an HTTP method an upstream's path does not serve → 405 with `Allow`
 * (per upstream kind), and a path no route serves → 404, both with a JSON-RPC body carrying the stable code.
 */
import { describe, expect, it } from 'vitest';
import type { SseUpstreamConfig, StdioUpstreamConfig } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';

const sse: SseUpstreamConfig = { kind: 'sse', name: 'old', sse: 'http://127.0.0.1:9/sse', path: '/old/mcp', timeoutMs: 1000, headers: {}, tools: {} };
const stdio: StdioUpstreamConfig = { kind: 'stdio', name: 'local', command: 'node', args: [], env: {}, path: '/local/mcp', timeoutMs: 1000, tools: {} };

describe('routes nothing serves', () => {
  it('405 with Allow on an upstream path, 404 elsewhere, always a JSON-RPC error body', async () => {
    const gw = await startGateway(gatewayConfig([httpUpstream('web', 'http://127.0.0.1:9/mcp'), sse, stdio]));
    const cases: [string, string, number, string | null][] = [
      ['PUT', '/web/mcp', 405, 'GET, POST, DELETE'],
      ['PATCH', '/local/mcp', 405, 'GET, POST, DELETE'],
      ['POST', '/old/mcp', 405, 'GET'],
      ['GET', '/old/mcp/message', 405, 'POST'],
      ['GET', '/nowhere', 404, null],
      ['POST', '/web/mcp/extra', 404, null],
    ];
    for (const [method, path, status, allow] of cases) {
      const response = await fetch(gw.url(path), { method });
      expect(response.status, `${method} ${path}`).toBe(status);
      expect(response.headers.get('allow')).toBe(allow);
      const body = (await response.json()) as { jsonrpc: string; error: { code: number; data: { code: string } } };
      expect(body.jsonrpc).toBe('2.0');
      expect(body.error.data.code).toBe(status === 405 ? 'RETROFIT_ERR_METHOD_NOT_ALLOWED' : 'RETROFIT_ERR_NOT_FOUND');
    }
  });
});
