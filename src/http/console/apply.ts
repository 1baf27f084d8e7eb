/**
 * `POST /ui/api/learn/<upstream>/apply`: the console's one write. Refused unless `ui.write`; a cross-site
 * request cannot make it: the body must be `application/json` (a form cannot send it without a CORS
 * preflight, which the gateway never grants), it must carry the page's `x-retrofit-csrf` token (readable only by a
 * page the gateway served), and the gate has already refused an Origin that is not allowed. One write at a
 * time. After writing, the config is reloaded when the gateway was given a way to (serve's reloader).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Console } from '../../console/index.js';
import type { ApplyReply, ReloadReport } from '../../console/wire.js';
import { RetrofitError } from '../../errors.js';
import { isJsonObject } from '../../json.js';
import { mediaType } from '../../upstream/headers.js';
import { writeError, writeJson } from '../write.js';

/** Most tools applied at once. */
const MAX_TOOLS = 1_000;

function same(a: string, b: string): boolean {
  const digest = (v: string): Buffer => createHash('sha256').update(v, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Why a write request is refused before its body is read, or undefined. */
export function writeRefusal(console: Console, headers: IncomingHttpHeaders): RetrofitError | undefined {
  if (!console.ui.write) return new RetrofitError('RETROFIT_ERR_UI_READ_ONLY');
  if (mediaType(headers['content-type']) !== 'application/json') return new RetrofitError('RETROFIT_ERR_UNSUPPORTED_MEDIA_TYPE');
  const token = headers['x-retrofit-csrf'];
  if (typeof token !== 'string' || !same(token, console.csrf)) return new RetrofitError('RETROFIT_ERR_UI_CSRF', ['the x-retrofit-csrf token is missing or wrong']);
  return undefined;
}

/** `{"tools": [names]}` → the names, or undefined. */
function toolsOf(body: Buffer | undefined): string[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse((body ?? Buffer.alloc(0)).toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isJsonObject(parsed) || !Array.isArray(parsed.tools) || parsed.tools.length === 0 || parsed.tools.length > MAX_TOOLS) return undefined;
  return parsed.tools.every((t) => typeof t === 'string') ? [...new Set(parsed.tools as string[])] : undefined;
}

/** Consoles writing now: one write at a time each. */
const writing = new WeakSet<Console>();

/** Answer one apply request for `upstream`. */
export async function answerApply(console: Console, upstream: string, headers: IncomingHttpHeaders, body: Buffer | undefined, res: ServerResponse, reload?: () => Promise<ReloadReport>): Promise<void> {
  const refused = writeRefusal(console, headers);
  if (refused) return writeError(res, refused);
  const tools = toolsOf(body);
  if (!tools) return writeError(res, new RetrofitError('RETROFIT_ERR_INVALID_REQUEST', [`the body must be {"tools": [tool names]} (1 to ${MAX_TOOLS})`]));
  if (!console.has(upstream)) return writeError(res, new RetrofitError('RETROFIT_ERR_UI_NOT_FOUND', [`upstream "${upstream}"`]));
  if (writing.has(console)) return writeError(res, new RetrofitError('RETROFIT_ERR_UI_BUSY', ['another apply is writing the config']));
  writing.add(console);
  try {
    const outcome = await console.apply(upstream, tools);
    if (!outcome) return writeError(res, new RetrofitError('RETROFIT_ERR_UI_NOT_FOUND', [`recording upstream "${upstream}"`]));
    if ('missing' in outcome) return writeError(res, new RetrofitError('RETROFIT_ERR_UI_NOT_FOUND', [`proposal for ${outcome.missing.map((t) => JSON.stringify(t)).join(', ')}`]));
    if (!outcome.ok) return writeError(res, new RetrofitError('RETROFIT_ERR_UI_APPLY_REJECTED', [], { data: { problems: outcome.problems.map((p) => console.scrub(p)) } }));
    const reloaded = reload ? await reload() : null;
    writeJson(res, 200, { written: outcome.written, backup: outcome.backup, tools: outcome.tools, reload: reloaded } satisfies ApplyReply);
  } finally {
    writing.delete(console);
  }
}
