/**
 * A raw legacy HTTP+SSE upstream (the 2024-11-05 transport) on node:http, for tests that need exact bytes or
 * timing from it: GET opens its event stream, whose first event names `/messages?s=1` as the POST endpoint;
 * every POST's body is handed to `onPost`, parsed (and as the text it came as), with its response, which the
 * handler answers (at once, late, or never); `event(data)` writes a `message` event on the stream, `write(bytes)`
 * anything. Closed when the test ends (./listen.ts).
 */
import type { ServerResponse } from 'node:http';
import { listen, readBody, type Listening } from './listen.js';

/** A message as a legacy upstream gets it (or a batch of them). */
export type LegacyMessage = { jsonrpc?: string; id?: string | number; method?: string; params?: Record<string, unknown> };

export interface RawLegacy extends Listening {
  /** The event stream's URL (what `sse:` points at). */
  readonly url: string;
  /** Write a `message` event with this data on the stream (dropped while no client holds it). */
  event(data: string): void;
  /** Write raw bytes on the stream. */
  write(bytes: string | Buffer): boolean;
  /** Answer an `initialize` on the stream (2024-11-05, a tools capability). */
  initialized(id: string | number | undefined, name?: string): void;
}

/** `prelude`: bytes the stream starts with, before its endpoint event (a comment, `retry:`). */
export async function rawLegacyUpstream(onPost: (body: LegacyMessage | LegacyMessage[], res: ServerResponse, up: RawLegacy, text: string) => void, prelude = ''): Promise<RawLegacy> {
  let stream: ServerResponse | undefined;
  const write = (bytes: string | Buffer): boolean => stream?.write(bytes) ?? false;
  const event = (data: string): void => void write(`event: message\ndata: ${data}\n\n`);
  const initialized = (id: string | number | undefined, name = 'legacy'): void =>
    event(JSON.stringify({ jsonrpc: '2.0', id, result: { protocolVersion: '2024-11-05', capabilities: { tools: {} }, serverInfo: { name, version: '1' } } }));
  const holder: { up?: RawLegacy } = {};
  const listening = await listen((req, res) => {
    if (req.method === 'GET') {
      stream = res;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`${prelude}event: endpoint\ndata: /messages?s=1\n\n`);
      return;
    }
    void readBody(req).then((body) => {
      const text = body.toString();
      onPost(JSON.parse(text) as LegacyMessage | LegacyMessage[], res, holder.up!, text);
    });
  });
  holder.up = { ...listening, url: `${listening.origin}/sse`, event, write, initialized };
  return holder.up;
}
