/**
 * The Cloudflare Workers entry point (`wrangler.jsonc` names it): `b2-mcp` as a Worker, configured
 * by the Worker's variables and secrets under the names of the README's configuration table. The
 * per-address limits key on `CF-Connecting-IP`, the address Cloudflare saw.
 */
import { createFetchHandler, type FetchHandler } from '../src/server/fetch-handler.js';

let handler: FetchHandler | undefined;

export default {
  fetch(request: Request, env: Record<string, unknown>): Promise<Response> {
    handler ??= createFetchHandler({ env: stringsOf(env), clientAddress: (r) => r.headers.get('cf-connecting-ip') ?? undefined });
    return handler(request);
  },
};

/** The Worker's text bindings (variables and secrets); other bindings (KV, queues) are not configuration. */
function stringsOf(env: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
