/**
 * Regression: routes the gateway derives from a config collided without `check` seeing it, and `serve` then
 * died with a raw FastifyError ("Method … already declared for route …"): an upstream at an sse: upstream's
 * `<path>/message`, an upstream at `/ui` with the console on. Now `check` and `serve` print the same one-line
 * FILE:LINE:COL error naming both, and exit 1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';

const cases = [
  {
    name: "an upstream at an sse upstream's message route",
    lines: ['upstreams:', "  a: { sse: 'http://127.0.0.1:1/sse', path: /x }", "  b: { url: 'http://127.0.0.1:1/mcp', path: /x/message }"],
    want: '3:45 upstreams.b: path /x/message is already used by the legacy message route of upstream "a" (an sse: upstream at /x)',
  },
  {
    name: 'an upstream at /ui with the console on',
    lines: ['upstreams:', '  a: { command: node, path: /ui }', 'ui: { enabled: true }'],
    want: '2:29 upstreams.a: path /ui is under /ui/, which is reserved for the operator console (`ui.enabled`)',
  },
];

describe('check and serve refuse colliding routes alike', () => {
  it.each(cases)('$name', async ({ lines, want }) => {
    const dir = mkdtempSync(join(tmpdir(), 'retrofit-paths-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gw.yaml');
    writeFileSync(file, `${lines.join('\n')}\n`);

    const check = await runCli(['check', '--config', file]);
    expect(check).toMatchObject({ code: 1, stdout: '', stderr: `${file}:${want}\n` });
    const serve = await runCli(['--config', file, '--port', '0']);
    expect(serve).toMatchObject({ code: 1, stdout: '', stderr: `${file}:${want}\n` });
  });
});
