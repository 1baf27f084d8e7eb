/** Reasons split into pointer and message as the engine writes them; texts cut and scrubbed when read. */
import { describe, expect, it } from 'vitest';
import { cut, failureView, parseReason, successView, type KeptSample } from '../../../src/console/samples.js';
import { check, compileSchema } from '../../../src/retrofit/validate.js';

describe('parseReason', () => {
  it('reads the pointer of every reason the validator writes', () => {
    const compiled = compileSchema({ type: 'object', required: ['a'], properties: { temp: { type: 'number' }, wind: { type: 'object', properties: { dir: { enum: ['N', 'S'] } } } }, additionalProperties: false });
    if (!compiled.ok) throw new Error(compiled.message);
    const verdict = check(compiled.validate, { temp: 'warm', wind: { dir: 'W' }, extra: 1 });
    if (verdict.ok) throw new Error('expected a failure');
    const reasons = verdict.reasons.map(parseReason);
    expect(reasons).toContainEqual({ pointer: '/temp', message: 'must be number' });
    expect(reasons).toContainEqual({ pointer: '/wind/dir', message: expect.stringContaining('must be equal to one of the allowed values') });
    expect(reasons).toContainEqual({ pointer: '', message: "must have required property 'a'" });
    expect(reasons).toContainEqual({ pointer: '', message: 'must NOT have additional properties "extra"' });
  });

  it('a reason that names no place has a null pointer', () => {
    expect(parseReason('no JSON value found in the text')).toEqual({ pointer: null, message: 'no JSON value found in the text' });
    expect(parseReason('and 3 more')).toEqual({ pointer: null, message: 'and 3 more' });
  });
});

describe('cut', () => {
  it('keeps short texts whole and cuts long ones at a character boundary', () => {
    expect(cut('hello', 16)).toEqual({ text: 'hello', truncated: false });
    const long = 'é'.repeat(100);
    const out = cut(long, 51);
    expect(out.truncated).toBe(true);
    expect(Buffer.byteLength(out.text)).toBeLessThanOrEqual(51);
    expect(out.text).toBe('é'.repeat(25));
  });
});

describe('views', () => {
  const sample: KeptSample = { at: 1, outcome: 'invalid', format: 'json', mode: 'applied', revision: '2025-06-18', text: '{"city":"Paris","key":"s3cr3t-token"}', truncated: false, args: ['Paris'], reasons: ['/temp must be number'], structured: { city: 'Paris', key: 's3cr3t-token' } };
  const secrets = (text: string): string => text.replaceAll('s3cr3t-token', '[Redacted]');

  it('scrubs the argument values and the secrets from a failure', () => {
    const view = failureView(sample, secrets);
    expect(view.text).toBe('{"city":"REDACTED","key":"[Redacted]"}');
    expect(view.reasons).toEqual([{ pointer: '/temp', message: 'must be number' }]);
  });

  it('scrubs a success structuredContent the same way', () => {
    expect(successView(sample, secrets).structuredContent).toEqual({ city: 'REDACTED', key: '[Redacted]' });
  });
});
