#!/usr/bin/env node
/**
 * The fault suite's stdio upstream: a real child process on the gateway's pipes whose MCP logic lives in the
 * suite's process (test/faults/upstream-stdio.ts), so one fault program serves all three transports. Its
 * stdin goes to the suite over TCP (argv[2] is the port), the suite's bytes come back as its stdout, byte
 * for byte. Backpressure carries through: while the suite does not read, this process does not read stdin.
 *
 * One fault is this process's own: a request whose directive says `"kind":"stall-stdin","ms":N` makes it
 * stop reading stdin for N ms at once, so the gateway's writes to the pipe back up within its 64 KB.
 *
 * The suite ending the connection first is the upstream dying: the process exits 3 at once. The gateway
 * closing stdin first is a normal end: the connection is ended and the process exits 0.
 */
import { connect } from 'node:net';

const STALL = /"kind":"stall-stdin","ms":(\d+)/;
const socket = connect({ host: '127.0.0.1', port: Number(process.argv[2]) });
let stdinEnded = false;
// The end of the last chunk, so a marker split between two chunks is still seen.
let tail = '';
process.stdin.on('data', (chunk) => {
  const text = tail + chunk.toString('latin1');
  tail = text.slice(-64);
  if (!socket.write(chunk)) {
    process.stdin.pause();
    socket.once('drain', () => process.stdin.resume());
  }
  const stall = STALL.exec(text);
  if (stall) {
    tail = '';
    process.stdin.pause();
    setTimeout(() => process.stdin.resume(), Number(stall[1]));
  }
});
process.stdin.once('end', () => {
  stdinEnded = true;
  socket.end();
});
socket.pipe(process.stdout, { end: false });
socket.once('end', () => process.exit(stdinEnded ? 0 : 3));
socket.once('close', () => process.exit(stdinEnded ? 0 : 3));
socket.on('error', () => process.exit(4));
process.stdout.on('error', () => process.exit(5));
