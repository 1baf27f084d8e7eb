/**
 * Bad input always gets a JSON-RPC error: an HTTP method an upstream's path does not serve → 405 with `Allow`
 * (per upstream kind), and a path no route serves → 404, both with a JSON-RPC body carrying the stable code.
 */
import { describe, expect, it } from 'vitest';
import type { SseUpstreamConfig, StdioUpstreamConfig } from '../../src/config/types.js';
import { gatewayConfig, httpUpstream, sseUpstream, stdioUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';

const sse: SseUpstreamConfig = sseUpstream('old', 'http://127.0.0.1:9/sse', { timeoutMs: 1000 });
const stdio: StdioUpstreamConfig = stdioUpstream('local', 'node', { timeoutMs: 1000 });

describe('routes nothing serves', () => {
  it('405 with Allow on an upstream path, 404 elsewhere, always a JSON-RPC error body', async () => {
    const gw = await startGateway(gatewayConfig([httpUpstream('web', 'http://127.0.0.1:9/mcp'), sse, stdio]));
    const cases: [string, string, number, string | null][] = [
      ['PUT', '/web/mcp', 405, 'GET, POST, DELETE, OPTIONS'],
      ['PATCH', '/local/mcp', 405, 'GET, POST, DELETE, OPTIONS'],
      ['PUT', '/old/mcp', 405, 'GET, POST, DELETE, OPTIONS'],
      ['GET', '/old/mcp/message', 405, 'POST, OPTIONS'],
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
