/**
 * The operator console's routes, registered only when `ui.enabled` (otherwise `/ui` is an unknown path like
 * any other). Every one goes through the gate: the pages with the DNS-rebinding guards (a browser cannot send
 * a bearer token when it loads a page; the pages hold no data), the API with the MCP routes' guards (rebinding
 * and `auth.bearerTokens`); then, unless `ui.remote`, only loopback peers are served.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { UI_ASSETS_PATH, UI_PATH } from '../../config/routes.js';
import type { Console } from '../../console/index.js';
import type { ReloadReport } from '../../console/wire.js';
import { RetrofitError } from '../../errors.js';
import type { Gate, GatewayRequest, RouteHandler } from '../server/gate.js';
import { isLoopbackAddress } from '../server/guards.js';
import { writeBody, writeError } from '../write.js';
import { API, answerGet, segments } from './api.js';
import { answerApply } from './apply.js';
import { ConsoleEvents } from './events.js';
import { ASSET, readUiFiles, type UiFiles } from './static.js';

/** The strict policy of the HTML shell: its own scripts and styles only, no inline script. */
export const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export interface ConsoleRouteOptions {
  /** Where the built pages are (default `<package root>/dist/ui`). */
  readonly uiDir?: string;
  /** Reload the config after a write (serve's reloader); absent: the watch or SIGHUP takes it. */
  readonly reload?: () => Promise<ReloadReport>;
}

/** What the app keeps of the console's routes: its event streams end at shutdown. */
export interface ConsoleRoutes {
  readonly events: ConsoleEvents;
  close(): void;
}

/** True when `address` may be served: any peer with `remote`, else loopback peers only. */
export function peerAllowed(remote: boolean, address: string | undefined): boolean {
  return remote || (address !== undefined && isLoopbackAddress(address));
}

const HTML_HEADERS = Object.freeze({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'content-security-policy': CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' });
const IMMUTABLE = 'public, max-age=31536000, immutable';

export function registerConsoleRoutes(app: FastifyInstance, gate: Gate, console: Console, options: ConsoleRouteOptions = {}): ConsoleRoutes {
  const events = new ConsoleEvents({ seq: () => console.seq });
  let files: Promise<UiFiles> | undefined;
  const pages = (): Promise<UiFiles> => (files ??= readUiFiles(options.uiDir));

  /** The peer check in front of every console handler. */
  const local = (handle: (request: GatewayRequest, res: ServerResponse) => Promise<void> | void): RouteHandler => (request, res) => {
    if (!peerAllowed(console.ui.remote, request.socket.remoteAddress)) return writeError(res, new RetrofitError('RETROFIT_ERR_UI_REMOTE'));
    return handle(request, res);
  };

  gate.route(app, { method: 'GET', url: UI_PATH, guards: 'discovery', handle: local((request, res) => writeBody(res, 308, { location: `${UI_PATH}/${request.query === '' ? '' : `?${request.query}`}` }, '')) });
  gate.route(app, {
    method: 'GET',
    url: `${UI_PATH}/`,
    guards: 'discovery',
    handle: local(async (_request, res) => {
      const built = await pages();
      if (!built.ok) return writeError(res, new RetrofitError('RETROFIT_ERR_UI_NOT_BUILT'));
      writeBody(res, 200, HTML_HEADERS, built.index);
    }),
  });
  gate.route(app, {
    method: 'GET',
    url: `${UI_ASSETS_PATH}*`,
    guards: 'discovery',
    handle: local(async (request, res) => {
      const name = request.path.slice(UI_ASSETS_PATH.length);
      const built = await pages();
      const file = ASSET.test(name) && built.ok ? built.assets.get(name) : undefined;
      if (!file) return writeError(res, new RetrofitError('RETROFIT_ERR_NOT_FOUND', [`GET ${request.path}`]));
      writeBody(res, 200, { 'content-type': file.type, 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff' }, file.body);
    }),
  });
  gate.route(app, { method: 'GET', url: `${API}*`, guards: 'mcp', handle: local((request, res) => answerGet(console, events, request.path, res)) });
  gate.route(app, {
    method: 'POST',
    url: `${API}learn/*`,
    guards: 'mcp',
    handle: local(async (request, res) => {
      const parts = segments(request.path);
      if (!parts || parts.length !== 3 || parts[2] !== 'apply' || parts[1] === undefined) return writeError(res, new RetrofitError('RETROFIT_ERR_UI_NOT_FOUND', [request.path]));
      await answerApply(console, parts[1], request.headers, request.body, res, options.reload);
    }),
  });
  // Event streams never end by themselves: they end when the gateway starts shutting down.
  app.addHook('preClose', async () => events.close());
  return { events, close: () => events.close() };
}
