/**
 * The fetch handler under Bun, wired as docs/deploy.md shows: configuration from the environment,
 * the client address from Bun's socket. Prints `{"url": …}` once listening on a free loopback port.
 */
import { createFetchHandler } from '../../src/server/fetch-handler.js';

interface BunServer {
  port: number;
  requestIP(request: Request): { address: string } | null;
}
declare const Bun: { serve(options: { port: number; hostname: string; fetch(request: Request): Promise<Response> }): BunServer };

let server: BunServer | undefined;
const handler = createFetchHandler({ env: { ...process.env }, clientAddress: (request) => server?.requestIP(request)?.address });
server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => handler(request) });
console.log(JSON.stringify({ url: `http://127.0.0.1:${server.port}/mcp` }));
