/** Tool directory names: safe on every file system and collision-free, even case-insensitively. */
import { describe, expect, it } from 'vitest';
import { isRecordingFileName, recordingFileName, toolDirName } from '../../../src/record/files.js';

const TRICKY = ['', '.', '..', 'a/b', 'a%2fb', 'a%2Fb', '../../etc/passwd', 'Get', 'get', 'GET', 'a b', 'a~b', 'naïve', '日本語', 'x'.repeat(300), `${'x'.repeat(299)}y`, 'tool.name', 'tool-name_1', 'CON', '\u0000', 'a\\b'];

describe('toolDirName', () => {
  it('keeps plain names readable', () => {
    expect(toolDirName('get_weather')).toBe('get_weather');
    expect(toolDirName('list-files')).toBe('list-files');
    expect(toolDirName('fs.read')).toBe('fs%2eread');
  });

  it('is safe: no separators, no dot names, at most 121 characters', () => {
    for (const name of TRICKY) {
      const dir = toolDirName(name);
      expect(dir, name).toMatch(/^[A-Za-z0-9_%~-]+$/);
      expect(dir.length, name).toBeLessThanOrEqual(121);
    }
  });

  it('is injective, also when case is ignored', () => {
    const dirs = TRICKY.map((n) => toolDirName(n).toLowerCase());
    expect(new Set(dirs).size).toBe(TRICKY.length);
  });
});

describe('recording file names', () => {
  it('sort by time, then sequence, and are recognised', () => {
    const a = recordingFileName(Date.UTC(2026, 10, 30, 19, 2, 12, 345), 9);
    const b = recordingFileName(Date.UTC(2026, 10, 30, 19, 2, 12, 345), 10);
    const c = recordingFileName(Date.UTC(2026, 10, 30, 19, 2, 13, 0), 1);
    expect(a).toBe('20261130T190212345Z-000009.json');
    expect([c, b, a].sort()).toEqual([a, b, c]);
    expect([a, b, c].every(isRecordingFileName)).toBe(true);
    expect(isRecordingFileName(`${a}.tmp`)).toBe(false);
    expect(isRecordingFileName('notes.json')).toBe(false);
  });
});
