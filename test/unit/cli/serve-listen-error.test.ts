import { expect, it } from 'vitest';
import { describeListenError } from '../../../src/cli/serve.js';

it('names the address and why binding failed; IPv6 hosts in brackets; unknown codes keep the message', () => {
  const busy = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:8080'), { code: 'EADDRINUSE' });
  expect(describeListenError('127.0.0.1', 8080, busy)).toBe('cannot listen on 127.0.0.1:8080: address already in use (EADDRINUSE)');
  const denied = Object.assign(new Error('listen EACCES: permission denied ::1:80'), { code: 'EACCES' });
  expect(describeListenError('::1', 80, denied)).toBe('cannot listen on [::1]:80: permission denied (EACCES)');
  expect(describeListenError('0.0.0.0', 1, new Error('something odd'))).toBe('cannot listen on 0.0.0.0:1: something odd');
});
