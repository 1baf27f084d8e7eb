import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { EventStore } from '../../../../src/http/front/events.js';
import { PostStream, RESUME_RETRY_MS, type PostStreamOptions } from '../../../../src/http/front/post-stream.js';
import { listen } from '../../../helpers/listen.js';

const answer = (id: number, extra = ''): string => `{"jsonrpc":"2.0","id":${id},"result":{"n":"${extra}"}}`;
const NOTE = '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}';
const event = (json: string, id?: string): string => `event: message\n${id === undefined ? '' : `id: ${id}\n`}data: ${json}\n\n`;

interface Exchange {
  /** The server's side of the POST. */
  readonly res: ServerResponse;
  /** The client's side: resolves when the headers arrive. */
  readonly response: Promise<Response>;
  readonly abort: () => void;
}

/** A real node:http server on port 0; each `next()` is one real client POST and the ServerResponse it got. */
async function server(): Promise<{ next: () => Promise<Exchange> }> {
  const waiting: ((res: ServerResponse) => void)[] = [];
  const { origin } = await listen((_req, res) => waiting.shift()!(res));
  return {
    async next() {
      const controller = new AbortController();
      const arrived = new Promise<ServerResponse>((resolve) => waiting.push(resolve));
      const response = fetch(origin, { method: 'POST', body: '{}', signal: controller.signal });
      response.catch(() => undefined);
      return { res: await arrived, response, abort: () => controller.abort() };
    },
  };
}

/** Read an SSE body incrementally. */
function reader(response: Response): { until: (text: string) => Promise<string>; rest: () => Promise<string> } {
  const r = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const more = async (): Promise<boolean> => {
    const { value, done } = await r.read();
    if (!done) text += decoder.decode(value, { stream: true });
    return !done;
  };
  return {
    async until(expected) {
      while (!text.includes(expected)) if (!(await more())) throw new Error(`the stream ended before ${JSON.stringify(expected)}; got ${JSON.stringify(text)}`);
      return text;
    },
    async rest() {
      while (await more()) {
        // read to the end
      }
      return text;
    },
  };
}

function options(extra: Partial<PostStreamOptions> = {}): PostStreamOptions {
  return { no: 3, sessionId: 'S1', ids: [1], priming: false, onPressure: () => undefined, ...extra };
}

describe('PostStream, not resumable', () => {
  it('answers with JSON when the answer is the first message to send', async () => {
    const { next } = await server();
    const { res, response } = await next();
    const stream = new PostStream(res, options());
    const json = answer(1, 'é');
    expect(stream.deliver(json, 1)).toBe(true);
    expect(stream.finished).toBe(true);
    const got = await response;
    expect(got.headers.get('content-type')).toBe('application/json');
    expect(got.headers.get('content-length')).toBe(String(Buffer.byteLength(json)));
    expect(got.headers.get('mcp-session-id')).toBe('S1');
    expect(await got.text()).toBe(json);
  });

  it('streams SSE when a notification comes first, without event ids, and ends with the last answer', async () => {
    const { next } = await server();
    const { res, response } = await next();
    const stream = new PostStream(res, options({ ids: [1, 2] }));
    stream.deliver(NOTE);
    const got = await response;
    expect(got.headers.get('content-type')).toBe('text/event-stream');
    expect(got.headers.get('mcp-session-id')).toBe('S1');
    const body = reader(got);
    await body.until(NOTE);
    stream.deliver(answer(2), 2);
    expect(stream.finished).toBe(false);
    stream.deliver(Buffer.from(answer(1)), 1);
    expect(stream.finished).toBe(true);
    expect(await body.rest()).toBe(event(NOTE) + event(answer(2)) + event(answer(1)));
  });

  it('is finished once its client went away: later messages are dropped', async () => {
    const { next } = await server();
    const { res, abort } = await next();
    const stream = new PostStream(res, options());
    stream.deliver(NOTE);
    abort();
    await once(res, 'close');
    expect(stream.attached).toBe(false);
    expect(stream.finished).toBe(true);
    expect(stream.deliver(answer(1), 1)).toBe(true);
  });
});

describe('PostStream, resumable', () => {
  it('gives every event an id <no>-<seq>, after a priming event with retry when priming', async () => {
    const { next } = await server();
    const { res, response } = await next();
    const events = new EventStore();
    const stream = new PostStream(res, options({ events, priming: true }));
    // Even a lone answer goes as a stream: the client could resume it.
    stream.deliver(answer(1), 1);
    const got = await response;
    expect(got.headers.get('content-type')).toBe('text/event-stream');
    const expected = [`id: 3-0\nretry: ${RESUME_RETRY_MS}\ndata: \n\n`, event(answer(1), '3-1')];
    expect(RESUME_RETRY_MS).toBe(1000);
    expect(await got.text()).toBe(expected.join(''));
    // The response ended cleanly: its client has everything, so the store keeps nothing of it.
    expect(events.knows(3)).toBe(false);
  });

  it('keeps the events while the stream runs, for a resumption', async () => {
    const { next } = await server();
    const { res, response } = await next();
    const events = new EventStore();
    const stream = new PostStream(res, options({ events, priming: true, ids: [1, 2] }));
    stream.deliver(answer(1), 1);
    await reader(await response).until(event(answer(1), '3-1'));
    expect(events.after({ stream: 3, seq: -1 }).map(String)).toEqual([`id: 3-0\nretry: ${RESUME_RETRY_MS}\ndata: \n\n`, event(answer(1), '3-1')]);
    stream.close();
  });

  it('numbers from <no>-0 without priming (2025-06-18 clients)', async () => {
    const { next } = await server();
    const { res, response } = await next();
    const stream = new PostStream(res, options({ no: 7, events: new EventStore(), ids: [1, 2] }));
    stream.deliver(NOTE);
    stream.deliver(answer(1), 1);
    stream.deliver(answer(2), 2);
    expect(await (await response).text()).toBe(event(NOTE, '7-0') + event(answer(1), '7-1') + event(answer(2), '7-2'));
  });

  it('keeps what follows a dropped connection, and a resuming response takes the stream over', async () => {
    const { next } = await server();
    const events = new EventStore();
    const first = await next();
    const stream = new PostStream(first.res, options({ events, priming: true, ids: [1, 2, 3] }));
    stream.deliver(answer(1), 1);
    await reader(await first.response).until(event(answer(1), '3-1'));
    first.abort();
    await once(first.res, 'close');
    expect(stream.attached).toBe(false);
    expect(stream.finished).toBe(false);

    stream.deliver(answer(2), 2);
    expect(events.after({ stream: 3, seq: 1 }).map(String)).toEqual([event(answer(2), '3-2')]);

    // The GET with Last-Event-ID: 3-1 — the caller writes the headers and replays, then hands the response over.
    const second = await next();
    second.res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const bytes of events.after({ stream: 3, seq: 1 })) second.res.write(bytes);
    stream.resume(second.res);
    expect(stream.attached).toBe(true);
    stream.deliver(answer(3), 3);
    expect(stream.finished).toBe(true);
    expect(await (await second.response).text()).toBe(event(answer(2), '3-2') + event(answer(3), '3-3'));
    // Delivered in full on the resuming response: forgotten.
    expect(events.knows(3)).toBe(false);
  });

  it('ends a resuming response at once when everything was answered meanwhile', async () => {
    const { next } = await server();
    const events = new EventStore();
    const first = await next();
    const stream = new PostStream(first.res, options({ events }));
    first.abort();
    await once(first.res, 'close');
    stream.deliver(answer(1), 1);
    const second = await next();
    second.res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const bytes of events.after({ stream: 3, seq: -1 })) second.res.write(bytes);
    stream.resume(second.res);
    expect(await (await second.response).text()).toBe(event(answer(1), '3-0'));
  });
});

describe('PostStream keep-alive ticks', () => {
  it('turns a JSON answer still waiting into a stream at its second tick, with a keep-alive comment', async () => {
    const { next } = await server();
    const { res, response } = await next();
    const stream = new PostStream(res, options());
    stream.tick();
    expect(res.headersSent).toBe(false);
    stream.tick();
    const got = await response;
    expect(got.headers.get('content-type')).toBe('text/event-stream');
    const body = reader(got);
    await body.until(': keepalive\n\n');
    stream.tick();
    stream.deliver(answer(1), 1);
    // Once a stream, always a stream.
    expect(await body.rest()).toBe(`: keepalive\n\n: keepalive\n\n${event(answer(1))}`);
  });

  it('leaves a finished stream alone', async () => {
    const { next } = await server();
    const { res, response } = await next();
    const stream = new PostStream(res, options());
    stream.deliver(answer(1), 1);
    stream.tick();
    stream.tick();
    expect(await (await response).text()).toBe(answer(1));
  });
});

describe('PostStream.abandon', () => {
  it('ends the stream when the abandoned request was the last one waiting', async () => {
    const { next } = await server();
    const { res, response } = await next();
    const stream = new PostStream(res, options({ ids: [1, 2] }));
    stream.deliver(answer(1), 1);
    stream.abandon(99);
    expect(stream.finished).toBe(false);
    stream.abandon(2);
    expect(stream.finished).toBe(true);
    expect(await (await response).text()).toBe(event(answer(1)));
  });

  it('ids of different JSON types are different requests', async () => {
    const { next } = await server();
    const { res } = await next();
    const stream = new PostStream(res, options({ ids: [1] }));
    stream.abandon('1');
    expect(stream.finished).toBe(false);
    stream.abandon(1);
    expect(stream.finished).toBe(true);
  });
});

describe('PostStream.outcome', () => {
  it('records the first error answer only', async () => {
    const { next } = await server();
    const { res } = await next();
    const stream = new PostStream(res, options({ ids: [1, 2, 3] }));
    stream.deliver(answer(1), 1);
    expect(stream.outcome).toEqual({});
    stream.deliver('{"jsonrpc":"2.0","id":2,"error":{"code":-32001}}', 2, { code: -32001, data: 'RETROFIT_ERR_UPSTREAM_TIMEOUT' });
    stream.deliver('{"jsonrpc":"2.0","id":3,"error":{"code":-32602}}', 3, { code: -32602 });
    expect(stream.outcome).toEqual({ rpcError: -32001, errorCode: 'RETROFIT_ERR_UPSTREAM_TIMEOUT' });
  });
});

describe('PostStream back-pressure', () => {
  it('is backed up while its response waits for drain, and says when that may have changed', async () => {
    const { next } = await server();
    const { res, response } = await next();
    let drained!: () => void;
    const relieved = new Promise<void>((resolve) => (drained = resolve));
    const stream = new PostStream(res, options({ onPressure: () => drained() }));
    expect(stream.backedUp).toBe(false);
    const big = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'x'.repeat(8 * 1024 * 1024)}"}}`;
    expect(stream.deliver(big)).toBe(false);
    expect(stream.backedUp).toBe(true);
    const body = (await response).text();
    await relieved;
    expect(stream.backedUp).toBe(false);
    stream.deliver(answer(1), 1);
    expect(await body).toBe(event(big) + event(answer(1)));
  });
});
