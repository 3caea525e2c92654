import net from 'node:net';

/**
 * Preloaded (`--import`) into the MCP Inspector's processes by `npm run inspect`: a server that
 * listens on a port without naming a host listens on 127.0.0.1, not on every interface.
 */
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (this: net.Server, ...args: unknown[]) {
  const [first, second] = args;
  const portOnly = (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) && typeof second !== 'string';
  return (listen as (...rest: unknown[]) => net.Server).apply(this, portOnly ? [first, '127.0.0.1', ...args.slice(1)] : args);
} as typeof net.Server.prototype.listen;
