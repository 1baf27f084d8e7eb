import { describe, expect, it } from 'vitest';
import { StderrTail } from '../../../src/upstream/stderr-tail.js';

describe('StderrTail', () => {
  it('keeps the last lines, oldest first, and returns each finished line from push', () => {
    const tail = new StderrTail({ maxLines: 2 });
    expect(tail.push('a\nb\n')).toEqual(['a', 'b']);
    expect(tail.push('c\r\n\n  \nd')).toEqual(['c']);
    expect(tail.text()).toBe('b\nc\nd');
    expect(tail.end()).toEqual(['d']);
    expect(tail.text()).toBe('c\nd');
  });

  it('bounds the kept characters, also for one endless line without a newline', () => {
    const tail = new StderrTail({ maxChars: 10 });
    tail.push('0123456789abcdef\n');
    expect(tail.text()).toBe('6789abcdef');
    tail.push('x'.repeat(100_000));
    expect(tail.text().length).toBeLessThanOrEqual(10);
  });

  it('redacts every kept line, and the unterminated one when read', () => {
    const tail = new StderrTail({ redact: (l) => l.replaceAll('hunter2', '[Redacted]') });
    tail.push('password hunter2\npass');
    expect(tail.text()).toBe('password [Redacted]\npass');
    tail.push('word hunter2');
    expect(tail.text()).toBe('password [Redacted]\npassword [Redacted]');
  });

  it('decodes UTF-8 split across chunks', () => {
    const tail = new StderrTail();
    const bytes = Buffer.from('température: 17°\n');
    tail.push(bytes.subarray(0, 5));
    tail.push(bytes.subarray(5));
    expect(tail.text()).toBe('température: 17°');
  });

  it('is empty when nothing but blank lines was written', () => {
    const tail = new StderrTail();
    tail.push('\n\n   \n');
    expect(tail.end()).toEqual([]);
    expect(tail.text()).toBe('');
  });
});
