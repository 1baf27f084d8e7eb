/**
 * Loaded into the gateway under test with `node --import <this file>` (bench only; nothing in src/ knows of
 * it): counts the listeners on the client side of every open GET stream, the request's response and its
 * socket, without asking the gateway for anything. It follows `http.server.request.start` (a diagnostics
 * channel every node:http server publishes) and, every 250 ms, writes one JSON object to LISTENER_PROBE_FILE:
 * { at, streams: [{ res, socket, top }] } — total listeners on each, and the three event names with the
 * most. The write is synchronous and small; the timer is unref'd so the probe never keeps the gateway alive.
 * Works for any build (the --compare one too), so before and after are counted the same way.
 */
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';

const file = process.env.LISTENER_PROBE_FILE;
const open = new Set();

function total(emitter) {
  let n = 0;
  for (const name of emitter.eventNames()) n += emitter.listenerCount(name);
  return n;
}

function top(res, socket) {
  const counts = [];
  for (const [what, emitter] of [
    ['res', res],
    ['socket', socket],
  ])
    for (const name of emitter.eventNames()) counts.push([`${what}.${String(name)}`, emitter.listenerCount(name)]);
  return Object.fromEntries(counts.sort((a, b) => b[1] - a[1]).slice(0, 3));
}

if (file) {
  subscribe('http.server.request.start', ({ request, response, socket }) => {
    if (request.method !== 'GET') return;
    const entry = { res: response, socket };
    open.add(entry);
    response.once('close', () => open.delete(entry));
  });
  setInterval(() => {
    const streams = [...open].map(({ res, socket }) => ({ res: total(res), socket: total(socket), top: top(res, socket) }));
    writeFileSync(file, JSON.stringify({ at: Date.now(), streams }));
  }, 250).unref();
}
