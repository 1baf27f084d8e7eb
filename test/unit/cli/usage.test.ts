/** `mcp-retrofit --help` lists every command with the options the command itself accepts (one synopsis each). */
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli.js';
import { run as runTry } from '../../../src/cli/try.js';
import { run as runInfer } from '../../../src/cli/infer.js';
import { textSink } from '../../helpers/cli.js';

describe('usage', () => {
  it('--help shows each command as the command does on a usage error', async () => {
    const stdout = textSink();
    expect(await main(['--help'], { stdout, stderr: textSink() })).toBe(0);
    const help = stdout.text();
    expect(help).toContain('[--client NAME[@VERSION]]');
    expect(help).toContain('[--tool GLOB | --explain TOOL]');
    for (const run of [runTry, runInfer]) {
      const stderr = textSink();
      expect(await run(['--no-such-option'], { stdout: textSink(), stderr })).not.toBe(0);
      const line = /usage: (mcp-retrofit .*)/.exec(stderr.text())?.[1];
      expect(line, stderr.text()).toBeDefined();
      expect(help).toContain(line);
    }
  });
});
