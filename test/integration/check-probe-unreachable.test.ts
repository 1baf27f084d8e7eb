/**
 * `check --probe` when an upstream cannot be reached: a `url:` upstream where nothing listens (connection
 * refused) and one that accepts but never answers (its own `timeoutMs` bounds the probe) each print one
 * clear line and make the exit code 1, while a healthy Streamable HTTP upstream in the same config is
 * still reported.
 */
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { expect, it } from 'vitest';
import { run } from '../../src/cli/check.js';
import { listen } from '../helpers/listen.js';
import { startV1Server } from '../helpers/v1-server.js';
import { tempFiles } from '../unit/config/helpers.js';

async function refusedPort(): Promise<number> {
  // Bind, learn the port, close: nothing listens there afterwards.
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function collect(stream: PassThrough): () => string {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return () => Buffer.concat(chunks).toString('utf8');
}

it('unreachable and silent url upstreams: a clear line each, exit 1; the healthy upstream is still listed', async () => {
  const healthy = await startV1Server();
  const silent = await listen(() => {
    // accepts the request, never answers
  });
  const port = await refusedPort();
  const dir = await tempFiles({
    'gw.yaml': `upstreams:
  down:
    url: http://127.0.0.1:${port}/mcp
  good:
    url: ${healthy.url}
    tools:
      echo: { outputSchema: { type: string } }
  mute:
    url: ${silent.origin}/mcp
    timeoutMs: 500
`,
  });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);

  expect(await run(['--config', join(dir, 'gw.yaml'), '--probe'], { stdout, stderr })).toBe(1);

  const errLines = err().split('\n').filter(Boolean);
  expect(errLines[0]).toMatch(new RegExp(`^probe: upstream "down" is unreachable: url http://127\\.0\\.0\\.1:${port}/mcp: .*ECONNREFUSED`));
  expect(errLines[1]).toBe('probe: upstream "mute" did not answer within 500ms');
  expect(errLines[2]).toBe('probe: 1 of 3 upstreams answered');
  expect(errLines).toHaveLength(3);

  const outLines = out().split('\n').filter(Boolean);
  // No `ok` before (or after) a probe that failed: the verdict is the summary on stderr, and exit 1.
  expect(outLines).not.toContain('ok');
  expect(outLines[0]).toMatch(/^good: \d+ tools \(http, server v1-test 1\.0\.0, revision 2025-11-25\)$/);
  expect(outLines).toContain('good/echo: outputSchema inline, extract auto, non-object root wrapped as {result} for 2025-06-18/2025-11-25 clients');
  expect(outLines).toContain('good/progress: unchanged');
});

it('never prints the password of an upstream URL that carries one', async () => {
  const port = await refusedPort();
  const dir = await tempFiles({
    'gw.yaml': `upstreams:
  down:
    url: http://operator:PROBE-URL-PASSWORD@127.0.0.1:${port}/mcp
  old:
    sse: http://operator:PROBE-SSE-PASSWORD@127.0.0.1:${port}/sse
`,
  });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out = collect(stdout);
  const err = collect(stderr);

  expect(await run(['--config', join(dir, 'gw.yaml'), '--probe'], { stdout, stderr })).toBe(1);

  expect(err()).toContain(`probe: upstream "down" is unreachable: url http://127.0.0.1:${port}/mcp: `);
  expect(err()).toContain(`probe: upstream "old" is unreachable: sse http://127.0.0.1:${port}/sse: `);
  expect(`${out()}${err()}`).not.toMatch(/PASSWORD/);
});
