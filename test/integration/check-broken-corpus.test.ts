/**
 * `mcp-retrofit check` on a corpus of broken configs (test/fixtures/broken-configs/, see its README): every
 * mistake of a file is reported in one run, each as FILE:LINE:COL, exactly as the file's `.expected` says,
 * and the exit code is 1 (issue 25).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run as check } from '../../src/cli/check.js';
import { textSink } from '../helpers/cli.js';
import { REPO } from '../helpers/stdio-gateway.js';

const DIR = resolve(REPO, 'test/fixtures/broken-configs');
const CASES = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort();

describe('check on broken configs', () => {
  it('has cases, each with what check must print', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(5);
    for (const file of CASES) expect(readdirSync(DIR)).toContain(file.replace(/\.yaml$/, '.expected'));
  });

  it.each(CASES)('%s: every mistake, with FILE:LINE:COL, in one run', async (file) => {
    const stdout = textSink();
    const stderr = textSink();
    const code = await check(['--config', join(DIR, file)], { stdout, stderr });
    const expected = readFileSync(join(DIR, file.replace(/\.yaml$/, '.expected')), 'utf8').replaceAll('<dir>/', `${DIR}/`);
    // check names the file as it was given (here, relative to the working directory): the name is what counts.
    const printed = stderr.text().replace(/^[^\n]*?broken-configs\//gm, '');
    expect({ code, stdout: stdout.text() }).toEqual({ code: 1, stdout: '' });
    expect(printed).toBe(expected);
    for (const line of printed.split('\n').filter(Boolean)) expect(line).toMatch(new RegExp(`^${file.replace('.', '\\.')}:\\d+:\\d+ `));
  });
});
