/**
 * A stdio child's stderr is logged at `debug` by default (servers echo what they are sent there: the user's
 * thoughts, queries), at `info` with `stderr: info`, and not at all with `stderr: off` (issue 25). The fixture
 * in --noisy mode writes "echoing <text>" to stderr on each echo, and a junk line to stdout just before it.
 * A logged line hides the call's argument values as recordings do.
 */
import { describe, expect, it } from 'vitest';
import { connectV1, FIXTURE_SERVER, firstText, startStdioGateway } from '../helpers/stdio-gateway.js';

const DEBUG = 20;
const INFO = 30;

describe('the level of a stdio child\'s stderr lines', () => {
  for (const [setting, level] of [[undefined, DEBUG], ['info', INFO], ['off', undefined]] as const) {
    it(`stderr: ${setting ?? '(default)'} → ${level === undefined ? 'not logged' : level === DEBUG ? 'debug' : 'info'}`, async () => {
      const gateway = await startStdioGateway({ args: [FIXTURE_SERVER, '--noisy'], ...(setting !== undefined && { upstream: { stderr: setting } }) });
      const client = await connectV1(gateway.url, 'stderr');
      expect(firstText(await client.callTool({ name: 'echo', arguments: { text: 'my secret thought' } }))).toBe('my secret thought');
      const stderr = (): unknown[] => gateway.logs.filter((l) => l.msg === 'upstream stderr' && l.line === 'echoing REDACTED').map((l) => l.level);
      if (level !== undefined) {
        await expect.poll(stderr).toEqual([level]);
        expect(JSON.stringify(gateway.logs)).not.toContain('my secret thought');
        return;
      }
      // A second echo: by its answer, the first one's stderr line has long been read (and not logged).
      await client.callTool({ name: 'echo', arguments: { text: 'again' } });
      expect(gateway.logs.filter((l) => l.msg === 'upstream stderr')).toEqual([]);
    });
  }
});
