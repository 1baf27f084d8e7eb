/**
 * The gateway process (the built CLI, as deployed) receives SIGTERM while a Streamable HTTP call is
 * mid-stream and a stdio call is blocked in its child: the HTTP call finishes (its upstream answers within
 * the grace period), the blocked stdio call fails with a JSON-RPC error, the process exits 0 and its stdio
 * child is gone.
 *
 * Regression: the stdio drain used its whole grace period (10 s) and so hit avvio's pluginTimeout (also
 * 10 s, which bounds close hooks too): close() failed with "Plugin did not start in time", connections were
 * force-closed, and the blocked call was cut off ("terminated") instead of answered with an error.
 */
import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { alive, FIXTURE_SERVER, REPO } from '../helpers/stdio-gateway.js';
import { listen, readBody } from '../helpers/listen.js';
import { ACCEPT_BOTH, messagesOf, openSession, post, sessionHeaders } from './harness.js';

let gateway: ChildProcessWithoutNullStreams | undefined;
afterEach(() => {
  if (gateway && gateway.exitCode === null && gateway.signalCode === null) gateway.kill('SIGKILL');
  gateway = undefined;
});

type Line = Record<string, unknown>;

/** Start the built CLI and read its log lines; resolves once it listens. */
async function startCli(config: string): Promise<{ proc: ChildProcessWithoutNullStreams; origin: string; waitFor: (test: (l: Line) => boolean) => Promise<Line>; lines: Line[] }> {
  const proc = spawn(process.execPath, ['dist/cli.js', '--config', config, '--port', '0'], { cwd: REPO, env: { ...process.env, LOG_LEVEL: 'info' } });
  gateway = proc;
  const lines: Line[] = [];
  const waiters = new Set<{ test: (l: Line) => boolean; resolve: (l: Line) => void }>();
  createInterface({ input: proc.stdout }).on('line', (text) => {
    let line: Line;
    try {
      line = JSON.parse(text) as Line;
    } catch {
      return;
    }
    lines.push(line);
    for (const w of waiters) {
      if (!w.test(line)) continue;
      waiters.delete(w);
      w.resolve(line);
    }
  });
  proc.stderr.resume();
  const waitFor = (test: (l: Line) => boolean): Promise<Line> => {
    const seen = lines.find(test);
    return seen ? Promise.resolve(seen) : new Promise((resolveLine) => waiters.add({ test, resolve: resolveLine }));
  };
  const listening = await waitFor((l) => typeof l.msg === 'string' && l.msg.startsWith('mcp-retrofit listening on'));
  return { proc, origin: String(listening.address), waitFor, lines };
}

describe('SIGTERM mid-stream (the built CLI)', () => {
  it('lets the streaming call finish, fails the blocked stdio call cleanly, exits 0 and leaves no child', async () => {
    // `npm test` builds first; a lone run of this file builds here.
    if (!existsSync(resolve(REPO, 'dist/cli.js'))) await promisify(execFile)(process.execPath, [resolve(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: REPO });

    // An HTTP upstream that opens an SSE answer, sends a progress event, and holds the rest until released.
    let held: ServerResponse | undefined;
    let rpcId = 0;
    let arrived!: () => void;
    const holding = new Promise<void>((r) => (arrived = r));
    const upstream = await listen((req, res) => {
      void readBody(req).then((body) => {
        const m = JSON.parse(body.toString('utf8')) as { id: number };
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}\n\n`);
        held = res;
        rpcId = m.id;
        arrived();
      });
    });

    const dir = await mkdtemp(join(tmpdir(), 'retrofit-sigterm-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const config = join(dir, 'gateway.yaml');
    await writeFile(
      config,
      [
        'upstreams:',
        '  held:',
        `    url: ${upstream.origin}/mcp`,
        '  fixture:',
        `    command: ${JSON.stringify(process.execPath)}`,
        `    args: [${JSON.stringify(FIXTURE_SERVER)}]`,
        // The test waits for the child's "blocking" on stderr, logged at info only when asked.
        '    stderr: info',
        '',
      ].join('\n'),
    );
    const cli = await startCli(config);
    const exited = new Promise<number | null>((r) => cli.proc.once('exit', (code) => r(code)));

    // 1. A streaming call through the HTTP upstream, read up to its first event.
    const streaming = await fetch(`${cli.origin}/held/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH },
      body: JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'slow', arguments: {} } }),
    });
    await holding;
    const reader = streaming.body!.getReader();
    let text = new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('working');

    // 2. A stdio call blocked inside the child.
    const stdioUrl = `${cli.origin}/fixture/mcp`;
    const session = await openSession(stdioUrl);
    const started = await cli.waitFor((l) => l.msg === 'upstream child started');
    const pid = Number(started.pid);
    const blocked = post(stdioUrl, { jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'block', arguments: {} } }, sessionHeaders(session));
    await cli.waitFor((l) => l.line === 'blocking');

    // 3. SIGTERM, then the HTTP upstream finishes its answer within the grace period.
    cli.proc.kill('SIGTERM');
    await cli.waitFor((l) => l.msg === 'shutting down: finishing in-flight requests');
    held!.end(`event: message\ndata: {"jsonrpc":"2.0","id":${rpcId},"result":{"content":[{"type":"text","text":"done"}]}}\n\n`);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += new TextDecoder().decode(chunk.value);
    expect(messagesOf(text, 'text/event-stream').find((m) => m.id === 41)).toMatchObject({ result: { content: [{ text: 'done' }] } });

    const failed = await blocked;
    expect(failed.messages.find((m) => m.id === 42)).toMatchObject({ error: { code: -32000, data: { code: 'RETROFIT_ERR_UPSTREAM_EXITED' } } });

    expect(await exited).toBe(0);
    expect(alive(pid)).toBe(false);
  }, 60_000);
});
