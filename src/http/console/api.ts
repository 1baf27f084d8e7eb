/**
 * The console's JSON API (docs/console.md): `/ui/api/…` paths to the console's views. Names in paths are
 * percent-encoded segments, decoded here one by one (a tool name may hold `/`).
 */
import type { ServerResponse } from 'node:http';
import { UI_API_PATH } from '../../config/routes.js';
import type { Console } from '../../console/index.js';
import type { UpstreamsReply } from '../../console/wire.js';
import { RetrofitError } from '../../errors.js';
import { writeError, writeJson } from '../write.js';
import type { ConsoleEvents } from './events.js';

/** The API's prefix. */
export const API = UI_API_PATH;

const NO_STORE = Object.freeze({ 'cache-control': 'no-store' });

/** The path's segments after `/ui/api/`, decoded; undefined when one does not decode. */
export function segments(path: string): string[] | undefined {
  try {
    return path.slice(API.length).split('/').map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

function notFound(res: ServerResponse, what: string): void {
  writeError(res, new RetrofitError('RETROFIT_ERR_UI_NOT_FOUND', [what]));
}

/** Answer one GET under /ui/api/. */
export async function answerGet(console: Console, events: ConsoleEvents, path: string, res: ServerResponse): Promise<void> {
  const parts = segments(path);
  if (!parts) return notFound(res, path);
  const [first, upstream, third, tool, ...rest] = parts;
  if (first === 'events' && parts.length === 1) return events.open(res);
  if (first === 'overview' && parts.length === 1) return writeJson(res, 200, console.overview(), NO_STORE);
  if (first === 'sessions' && parts.length === 1) return writeJson(res, 200, console.sessionsView(), NO_STORE);
  if (first === 'upstreams' && parts.length === 1) return writeJson(res, 200, { upstreams: await console.upstreams() } satisfies UpstreamsReply, NO_STORE);
  if (upstream !== undefined && (first === 'upstreams' || first === 'learn') && !console.has(upstream)) return notFound(res, `upstream "${upstream}"`);
  if (first === 'upstreams' && upstream !== undefined && third === 'tools' && rest.length === 0) {
    if (tool === undefined) return writeJson(res, 200, await console.tools(upstream), NO_STORE);
    const detail = await console.tool(upstream, tool);
    return detail ? writeJson(res, 200, detail, NO_STORE) : notFound(res, `tool "${tool}" of upstream "${upstream}"`);
  }
  if (first === 'learn' && upstream !== undefined && parts.length === 2) {
    const view = await console.learn(upstream);
    if (!view) return notFound(res, `recording upstream "${upstream}"`);
    return writeJson(res, 200, { ...view, write: console.ui.write }, NO_STORE);
  }
  return notFound(res, path);
}
