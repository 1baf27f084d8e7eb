/**
 * An OAuth-protected upstream used through the gateway by the v1 SDK client's real OAuth flow: discovery from
 * the 401, RFC 9728 metadata (its `resource` must be the URL the client connected to, i.e. the gateway's),
 * RFC 8414 metadata and dynamic registration at an authorization server on another origin, the authorization
 * code with PKCE (completed programmatically), the token exchange, then tools/list and tools/call with the
 * token passing through. No token, refresh token or code may appear in the gateway's logs.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { gatewayConfig, httpUpstream } from '../helpers/config.js';
import { startGateway } from '../helpers/gateway.js';
import { startAuthServer, startProtectedServer, TestOAuthProvider } from '../helpers/oauth.js';

describe('OAuth through the gateway (v1 SDK client)', () => {
  it('authorizes against the upstream`s authorization server and calls a tool through the gateway', async () => {
    const as = await startAuthServer();
    const upstream = await startProtectedServer(as);
    const gw = await startGateway(gatewayConfig([httpUpstream('secure', upstream.url, { path: '/secure/mcp' })]));
    const endpoint = gw.url('/secure/mcp');

    // What a client sees before it has a token: the challenge and the metadata name the gateway.
    const anonymous = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="${gw.url('/.well-known/oauth-protected-resource/secure/mcp')}"`,
    );
    const metadata = (await (await fetch(gw.url('/.well-known/oauth-protected-resource/secure/mcp'))).json()) as Record<string, unknown>;
    expect(metadata).toEqual({ resource: endpoint, authorization_servers: [as.origin], bearer_methods_supported: ['header'] });
    // The only url: upstream also owns the root document.
    expect(await (await fetch(gw.url('/.well-known/oauth-protected-resource'))).json()).toEqual(metadata);

    const provider = new TestOAuthProvider();
    const first = new Client({ name: 'oauth-test', version: '1.0.0' });
    await expect(first.connect(new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider }))).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.code).toMatch(/^code-/);
    const transport = new StreamableHTTPClientTransport(new URL(endpoint), { authProvider: provider });
    await transport.finishAuth(provider.code!);

    const client = new Client({ name: 'oauth-test', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(transport);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['whoami']);
    expect(await client.callTool({ name: 'whoami', arguments: { greeting: 'hello' } })).toMatchObject({ content: [{ type: 'text', text: 'hello, authorized' }] });

    // RFC 8707: the client asked for tokens for the gateway's URL (authorization and token requests).
    expect(as.resources).toEqual([endpoint, endpoint]);
    // The token crossed the gateway to the upstream, untouched, on every MCP request.
    const token = provider.tokens()?.access_token;
    expect(upstream.authorizations.length).toBeGreaterThanOrEqual(3);
    expect(new Set(upstream.authorizations)).toEqual(new Set([`Bearer ${token}`]));
    // Never a token, refresh token or authorization code in a log line.
    const logged = JSON.stringify(gw.logs);
    expect(gw.logs.length).toBeGreaterThan(5);
    for (const secret of as.secrets) expect(logged).not.toContain(secret);
  });
});
