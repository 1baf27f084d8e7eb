/**
 * OAuth for tests, all real and on port 0: a minimal authorization server (dynamic registration, authorization
 * code with PKCE S256, refresh; RFC 8414 metadata), a v1 SDK McpServer behind the SDK's `requireBearerAuth`
 * publishing RFC 9728 protected-resource metadata, and an OAuthClientProvider for the v1 client that completes
 * the browser step with fetch (it reads the code from the redirect instead of opening a page).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { z } from 'zod';
import { listen, readBody } from './listen.js';

/** What the authorization server saw and issued (for assertions). */
export interface AuthServer {
  readonly origin: string;
  /** `resource` parameters of authorization and token requests, in order (RFC 8707). */
  readonly resources: string[];
  /** Every access token, refresh token and authorization code issued. */
  readonly secrets: string[];
  verify(token: string): boolean;
}

const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export async function startAuthServer(): Promise<AuthServer> {
  const codes = new Map<string, { challenge: string; resource: string }>();
  const tokens = new Set<string>();
  const resources: string[] = [];
  const secrets: string[] = [];
  const issue = (resource: string): OAuthTokens => {
    const access = `at-${randomUUID()}`;
    const refresh = `rt-${randomUUID()}`;
    tokens.add(access);
    secrets.push(access, refresh);
    resources.push(resource);
    return { access_token: access, token_type: 'Bearer', expires_in: 3600, refresh_token: refresh };
  };
  const server = await listen((req, res) => {
    const url = new URL(req.url ?? '/', 'http://as');
    if (req.method === 'GET' && url.pathname === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: server.origin,
        authorization_endpoint: `${server.origin}/authorize`,
        token_endpoint: `${server.origin}/token`,
        registration_endpoint: `${server.origin}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
      });
    }
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const code = `code-${randomUUID()}`;
      const resource = url.searchParams.get('resource') ?? '';
      codes.set(code, { challenge: url.searchParams.get('code_challenge') ?? '', resource });
      secrets.push(code);
      resources.push(resource);
      const back = new URL(url.searchParams.get('redirect_uri') ?? '');
      back.searchParams.set('code', code);
      const state = url.searchParams.get('state');
      if (state !== null) back.searchParams.set('state', state);
      return void res.writeHead(302, { location: back.href }).end();
    }
    void readBody(req).then((body) => {
      if (req.method === 'POST' && url.pathname === '/register') {
        const metadata = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
        return json(res, 201, { ...metadata, client_id: `client-${randomUUID()}`, client_id_issued_at: Math.floor(Date.now() / 1000) });
      }
      if (req.method === 'POST' && url.pathname === '/token') {
        const form = new URLSearchParams(body.toString('utf8'));
        const grant = codes.get(form.get('code') ?? '');
        if (form.get('grant_type') === 'authorization_code' && grant && s256(form.get('code_verifier') ?? '') === grant.challenge) {
          codes.delete(form.get('code') ?? '');
          return json(res, 200, issue(form.get('resource') ?? ''));
        }
        return json(res, 400, { error: 'invalid_grant' });
      }
      json(res, 404, { error: 'not_found' });
    });
  });
  return { origin: server.origin, resources, secrets, verify: (token) => tokens.has(token) };
}

/** Where the protected upstream publishes its metadata, and what `resource` it names. */
export interface ProtectedOptions {
  /** Path of the metadata document (default: RFC 9728's path-aware location for `/mcp`). */
  readonly metadataPath?: string;
  /** `resource` in the document (default: the upstream's own `/mcp` URL). */
  readonly resource?: string;
}

/** A v1 SDK server at `/mcp` behind `requireBearerAuth`; `authorizations` lists the Authorization headers it accepted. */
export async function startProtectedServer(as: AuthServer, options: ProtectedOptions = {}): Promise<{ url: string; origin: string; authorizations: string[] }> {
  const metadataPath = options.metadataPath ?? '/.well-known/oauth-protected-resource/mcp';
  const authorizations: string[] = [];
  const verifier = {
    verifyAccessToken: async (token: string) => {
      if (!as.verify(token)) throw new InvalidTokenError('unknown token');
      return { token, clientId: 'any', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
    },
  };
  let origin = '';
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method === 'GET' && path === metadataPath) {
      return json(res, 200, { resource: options.resource ?? `${origin}/mcp`, authorization_servers: [as.origin], bearer_methods_supported: ['header'] });
    }
    if (path !== '/mcp') return json(res, 404, { error: 'not_found' });
    const body = req.method === 'POST' ? (JSON.parse((await readBody(req)).toString('utf8')) as unknown) : undefined;
    // requireBearerAuth is Express middleware: it needs only set/status/json of the response.
    const shim = { set: (name: string, value: string) => res.setHeader(name, value), status: (code: number) => ({ json: (b: unknown) => json(res, code, b) }) };
    let authorized = false;
    await requireBearerAuth({ verifier, resourceMetadataUrl: `${origin}${metadataPath}` })(req, shim, () => {
      authorized = true;
    });
    if (!authorized) return;
    authorizations.push(req.headers.authorization ?? '');
    const server = new McpServer({ name: 'protected', version: '1.0.0' });
    server.registerTool('whoami', { inputSchema: { greeting: z.string() } }, async ({ greeting }, extra) => ({
      content: [{ type: 'text', text: `${greeting}, ${extra.authInfo ? 'authorized' : 'anonymous'}` }],
    }));
    // Stateless: one transport per request, as the SDK's stateless examples do.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on('close', () => void transport.close());
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const server = await listen((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String(err) });
    });
  });
  origin = server.origin;
  return { url: `${origin}/mcp`, origin, authorizations };
}

/** The v1 client's OAuth provider; `redirectToAuthorization` follows the AS with fetch and keeps the code. */
export class TestOAuthProvider implements OAuthClientProvider {
  code: string | undefined;
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';

  get redirectUrl(): string {
    return 'http://127.0.0.1:1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'retrofit-test', redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.#client;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.#client = info;
  }

  tokens(): OAuthTokens | undefined {
    return this.#tokens;
  }

  saveTokens(tokens: OAuthTokens): void {
    this.#tokens = tokens;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    const answer = await fetch(url, { redirect: 'manual' });
    const location = answer.headers.get('location');
    if (answer.status !== 302 || location === null) throw new Error(`authorization answered ${answer.status}`);
    this.code = new URL(location).searchParams.get('code') ?? undefined;
  }

  saveCodeVerifier(verifier: string): void {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    return this.#verifier;
  }
}
