/**
 * Resumable stdio sessions: a 2025-11-25 client's answer stream carries event ids (and a priming event with
 * `retry:`), the session keeps what it sends in a bounded event store, and a client whose stream dropped
 * mid-call resumes it with `GET` + `Last-Event-ID` and is sent what it missed — the rewritten result
 * included. Proven with a real v1 SDK client in front of server-everything over stdio: its POST stream is cut
 * right after the priming event, and the client reconnects by itself.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EVERYTHING_SERVER, startStdioGateway } from '../helpers/stdio-gateway.js';

type Fetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** A fetch that cuts the first tools/call's answer stream after its first event, and records every GET. */
function droppingFetch(gets: Headers[]): Fetch {
  let dropped = false;
  return async (url, init) => {
    if (init?.method === 'GET') gets.push(new Headers(init.headers));
    const body = typeof init?.body === 'string' ? init.body : '';
    if (dropped || !body.includes('"tools/call"')) return fetch(url, init);
    dropped = true;
    const controller = new AbortController();
    const res = await fetch(url, { ...init, signal: controller.signal });
    const reader = res.body!.getReader();
    let seen = '';
    const cut = new ReadableStream<Uint8Array>({
      async pull(out) {
        if (seen.includes('\n\n')) {
          // The connection goes, as a flaky network takes it: the gateway sees its client leave.
          controller.abort();
          out.close();
          return;
        }
        const { value, done } = await reader.read();
        if (done) return out.close();
        seen += new TextDecoder().decode(value);
        out.enqueue(value);
      },
    });
    return new Response(cut, { status: res.status, headers: res.headers });
  };
}

describe('stdio session: a stream dropped mid-call', () => {
  it('is resumed with Last-Event-ID by a real v1 client, which gets the missed progress and the rewritten result', async () => {
    const gateway = await startStdioGateway({
      name: 'everything',
      args: [EVERYTHING_SERVER, 'stdio'],
      tools: { 'trigger-long-running-operation': { outputSchema: { type: 'string', pattern: '^Long running operation completed' } } },
    });
    const gets: Headers[] = [];
    const transport = new StreamableHTTPClientTransport(new URL(gateway.url), { fetch: droppingFetch(gets) });
    const client = new Client({ name: 'resumer', version: '1.0.0' });
    onTestFinished(() => client.close());
    await client.connect(transport);
    await client.listTools();

    const progress: number[] = [];
    const result = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 2 } }, undefined, { onprogress: (p) => progress.push(p.progress), timeout: 20_000 });

    // The client resumed the POST's stream from the last event it had (the priming event, or one just after)…
    const resumed = gets.find((h) => h.get('last-event-id') !== null);
    expect(resumed?.get('last-event-id')).toMatch(/^\d+-[01]$/);
    // …and was sent everything after it: both progress notifications and the result, rewritten.
    expect(progress).toEqual([1, 2]);
    expect(result.structuredContent).toEqual({ result: expect.stringMatching(/^Long running operation completed/) });
    // The dropped exchange is logged as aborted; the resuming GET as served.
    const lines = gateway.logs.filter((l) => l.msg === 'request');
    expect(lines.find((l) => l.method === 'tools/call')).toMatchObject({ outcome: 'aborted' });
    expect(lines.some((l) => l.method === 'GET' && l.status === 200)).toBe(true);
  });
});
