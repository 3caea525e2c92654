import { withSecretFiles } from './config.js';
import { loadHttpSettings } from './transports/http-settings.js';
import type { HttpService } from './transports/http-service.js';
import type { SharedState } from './transports/shared-state.js';

export interface FetchHandlerOptions {
  /** The configuration `b2-mcp http` reads from `process.env`, under the same names (see the README's table). */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The client's address for the per-address limits, from what the platform knows about the
   * connection (Cloudflare's `CF-Connecting-IP` header, Bun's `server.requestIP(request)`). Without it
   * (and without `B2_TRUST_PROXY_HEADERS=true`) every client shares one address bucket.
   */
  clientAddress?: (request: Request) => string | undefined;
}

/** A Web-standard handler; `close()` ends its legacy sessions and its Redis connection (tests and graceful shutdown). */
export interface FetchHandler {
  (request: Request): Promise<Response>;
  close(): Promise<void>;
}

/**
 * The `b2-mcp http` server as a Web-standard `(request) => Promise<Response>` for Cloudflare
 * Workers, Vercel, Deno and Bun: the same Host/Origin guard, body limit, rate limits, in-flight
 * caps, credential modes, eras and policies. Settings are validated here (a bad value throws a
 * `ConfigError`); the server itself is built on the first request.
 */
export function createFetchHandler(options: FetchHandlerOptions): FetchHandler {
  const env = withSecretFiles({ ...options.env });
  const settings = loadHttpSettings(env);
  let service: Promise<HttpService> | undefined;
  let shared: SharedState | undefined;
  const started = (): Promise<HttpService> =>
    (service ??= Promise.all([
      import('./start.js'),
      import('./transports/http-service.js'),
      import('./transports/open-shared-state.js'),
    ]).then(async ([start, http, state]) => {
      const runtime = await start.createRuntime(env, 'http');
      shared = await state.openSharedState({
        limits: settings,
        redis: settings.redis,
        sessionIdleMs: http.LEGACY_SESSION_IDLE_MS,
        logger: runtime.logger,
      });
      return http.createHttpService(runtime, settings, undefined, shared);
    }));

  const handler = async (request: Request): Promise<Response> => {
    const address = options.clientAddress?.(request);
    // Platforms put the authority in the URL; a Request built by hand may carry no Host header.
    const withHost = request.headers.has('host') ? request : withHostHeader(request);
    return (await started()).handle(withHost, address === undefined ? {} : { address });
  };
  return Object.assign(handler, {
    close: async () => {
      if (!service) return;
      await (await service).closeSessions();
      await shared?.close();
    },
  });
}

function withHostHeader(request: Request): Request {
  const headers = new Headers(request.headers);
  headers.set('host', new URL(request.url).host);
  return new Request(request, { headers });
}
