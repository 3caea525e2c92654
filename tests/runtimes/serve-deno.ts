/**
 * The fetch handler under Deno, wired as docs/deploy.md shows: configuration from the environment,
 * the client address from Deno's connection info. Prints `{"url": …}` once listening on a free
 * loopback port.
 */
import { createFetchHandler } from '../../src/server/fetch-handler.js';

interface ServeInfo {
  remoteAddr: { hostname: string };
}
declare const Deno: {
  env: { toObject(): Record<string, string> };
  serve(
    options: { port: number; hostname: string; onListen(address: { port: number }): void },
    serve: (request: Request, info: ServeInfo) => Promise<Response>,
  ): unknown;
};

const peers = new WeakMap<Request, string>();
const handler = createFetchHandler({ env: Deno.env.toObject(), clientAddress: (request) => peers.get(request) });
Deno.serve(
  { port: 0, hostname: '127.0.0.1', onListen: ({ port }) => console.log(JSON.stringify({ url: `http://127.0.0.1:${port}/mcp` })) },
  (request, info) => {
    peers.set(request, info.remoteAddr.hostname);
    return handler(request);
  },
);
