// Preloaded (`node --import`, or NODE_OPTIONS for tsx's child) into the conformance suite and its reference
// server: every TCP server they start listens on 127.0.0.1 only (both bind all interfaces by default). With
// RETROFIT_CONFORMANCE_ANNOUNCE set, the first server also takes a free port (0) and prints
// `conformance-listening PORT` on stderr, so nothing has to guess a free port and bind it later.
//
// The socket is bound synchronously, as a listen() without a host is: the suite reads server.address() right
// after listen(). A listen() with a host would resolve it first and leave address() null until then.
import net from 'node:net';

const { TCP, constants } = process.binding('tcp_wrap');
const listen = net.Server.prototype.listen;
let announce = process.env.RETROFIT_CONFORMANCE_ANNOUNCE !== undefined;

net.Server.prototype.listen = function (...args) {
  const callback = typeof args.at(-1) === 'function' ? args.pop() : undefined;
  const [first, second] = args;
  const options = first !== null && typeof first === 'object' ? first : { port: first, backlog: typeof second === 'number' ? second : undefined };
  // A Unix socket path, a named pipe or an inherited handle is left alone.
  const tcp = options.path === undefined && options.fd === undefined && options._handle === undefined && !(first instanceof TCP);
  const port = options.port === undefined ? 0 : Number(options.port);
  if (!tcp || !Number.isInteger(port) || (typeof first === 'string' && !/^\d+$/.test(first))) return listen.call(this, ...args, ...(callback ? [callback] : []));
  const handle = new TCP(constants.SERVER);
  const wanted = announce ? 0 : port;
  if (handle.bind('127.0.0.1', wanted) !== 0) {
    handle.close();
    // Let Node report the failure (EADDRINUSE…) its own way.
    return listen.call(this, { port: wanted, host: '127.0.0.1' }, ...(callback ? [callback] : []));
  }
  if (announce) {
    announce = false;
    this.once('listening', () => process.stderr.write(`conformance-listening ${this.address().port}\n`));
  }
  const backlog = typeof options.backlog === 'number' ? [options.backlog] : [];
  return listen.call(this, handle, ...backlog, ...(callback ? [callback] : []));
};
