import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/serve.js';

function io() {
  const stderr = new PassThrough();
  let text = '';
  stderr.on('data', (c: Buffer) => (text += c.toString()));
  return { io: { stdout: new PassThrough(), stderr }, err: () => text };
}

describe('mcp-retrofit serve arguments', () => {
  it.each([
    [[], '--config FILE is required'],
    [['--config'], '--config needs a value'],
    [['--config', 'x.yaml', '--port', 'eighty'], '--port must be 0..65535, got "eighty"'],
    [['--config', 'x.yaml', '--verbose'], 'unknown argument "--verbose"'],
  ])('%j exits 1 with a message', async (args, message) => {
    const { io: streams, err } = io();
    expect(await run(args, streams)).toBe(1);
    expect(err()).toContain(`serve: ${message}`);
  });

  it('reports a missing config file and exits 1', async () => {
    const { io: streams, err } = io();
    expect(await run(['--config', '/nonexistent/gateway.yaml'], streams)).toBe(1);
    expect(err()).toContain('/nonexistent/gateway.yaml');
  });
});
