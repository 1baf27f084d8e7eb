/**
 * The one live connection: a fetch-based reader of the SSE stream /ui/api/events (fetch rather than
 * EventSource so the Authorization header can be sent). Each `tick` event is passed on to the listeners;
 * the stream is reopened after a pause when it ends or fails.
 */
import { apiUrl, authHeaders, failure } from './api.js';

type TickListener = () => void;
const listeners = new Set<TickListener>();
let controller: AbortController | null = null;
let retry: ReturnType<typeof setTimeout> | undefined;
let backoffMs = 1_000;

/** Listen for ticks; returns the function that stops listening. */
export function onTick(listener: TickListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Open (or reopen) the stream. */
export function connectEvents(): void {
  disconnectEvents();
  const own = new AbortController();
  controller = own;
  void read(own.signal).then(
    () => schedule(own),
    () => schedule(own),
  );
}

/** Close the stream and forget any pending reconnect. */
export function disconnectEvents(): void {
  clearTimeout(retry);
  controller?.abort();
  controller = null;
}

function schedule(own: AbortController): void {
  if (controller !== own || own.signal.aborted) return;
  retry = setTimeout(connectEvents, backoffMs);
  backoffMs = Math.min(backoffMs * 2, 30_000);
}

async function read(signal: AbortSignal): Promise<void> {
  const res = await fetch(apiUrl('events'), { headers: { accept: 'text/event-stream', ...authHeaders() }, signal, cache: 'no-store' });
  if (!res.ok || res.body === null) {
    const error = await failure(res);
    // 401: the token prompt reconnects once a token is given.
    if (res.status === 401) controller = null;
    throw error;
  }
  backoffMs = 1_000;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let event = 'message';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let nl: number;
    while ((nl = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + (buffer.startsWith('\r\n', nl) ? 2 : 1));
      if (line === '') {
        if (event === 'tick') for (const l of listeners) l();
        event = 'message';
      } else if (line.startsWith('event:')) {
        event = line.slice(6).trim();
      }
      // data: lines carry {at, seq}; a tick means "re-fetch", so its data is not needed.
    }
    // A peer that never sends a newline must not grow the buffer without bound.
    if (buffer.length > 65_536) buffer = '';
  }
}
