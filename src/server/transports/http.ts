import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { ServerRuntime } from '../server.js';
import { lingerOnClose, nodeBodyStream } from './body-limit.js';
import { loadHttpSettings, type HttpSettings } from './http-settings.js';
import { createHttpService, LEGACY_SESSION_IDLE_MS, type HttpService } from './http-service.js';
import { openSharedState } from './open-shared-state.js';
import type { SharedState } from './shared-state.js';

const SWEEP_INTERVAL_MS = 60_000;
/** Below the CLI's 10 s hard stop, so a drain always finishes on its own. */
const DEFAULT_DRAIN_MS = 9_000;

export interface HttpOptions {
  port: number;
  host: string;
  /** Transport settings (allowlists, limits, credential mode); defaults apply when omitted. */
  settings?: HttpSettings;
  /** Limits and session ownership (tests inject one); opened from `settings` and closed with the server when omitted. */
  sharedState?: SharedState;
}

export interface HttpHandle {
  server: Server;
  /**
   * Graceful shutdown: new requests get 503 while in-flight ones finish (up to `timeoutMs`),
   * then sessions and connections are closed.
   */
  drain(timeoutMs?: number): Promise<void>;
}

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(new URL(req.url ?? '/', 'http://localhost'), {
    method,
    headers,
    signal,
    ...(hasBody && { body: nodeBodyStream(req), duplex: 'half' }),
  } as RequestInit);
}

/** Writes a Web `Response` to Node, honouring backpressure and stopping when the client goes away. */
async function writeResponse(req: IncomingMessage, res: ServerResponse, response: Response, closed: AbortSignal): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  // Closing while the client is still uploading would reset the connection under its upload.
  if (headers.connection === 'close' && !req.complete) lingerOnClose(req);
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  const reader = response.body.getReader();
  const cancel = (): void => void reader.cancel().catch(() => undefined);
  closed.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          res.once('drain', resolve);
          closed.addEventListener('abort', () => resolve(), { once: true });
        });
      if (closed.aborted) break;
    }
  } catch {
    // The body failed or was cancelled: end what was sent.
  } finally {
    closed.removeEventListener('abort', cancel);
  }
  res.end();
}

function nodeListener(service: HttpService): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const closed = new AbortController();
    res.once('close', () => closed.abort());
    void (async () => {
      let request: Request;
      try {
        request = toRequest(req, closed.signal);
      } catch {
        // A request target or header that Node's parser let through but no Request can hold.
        res.writeHead(400, { 'content-type': 'application/json', connection: 'close' });
        return void res.end(JSON.stringify({ error: 'Bad request' }));
      }
      const response = await service.handle(request, { address: req.socket.remoteAddress });
      if (closed.signal.aborted) return void (await response.body?.cancel().catch(() => undefined));
      await writeResponse(req, res, response, closed.signal);
    })().catch(() => res.destroy());
  };
}

/** `b2-mcp http`: the Web-standard service of http-service.ts behind node:http, with Node's timeouts and a graceful drain. */
export async function serveOverHttp(runtime: ServerRuntime, options: HttpOptions): Promise<HttpHandle> {
  const settings = options.settings ?? loadHttpSettings({});
  const shared =
    options.sharedState ??
    (await openSharedState({ limits: settings, redis: settings.redis, sessionIdleMs: LEGACY_SESSION_IDLE_MS, logger: runtime.logger }));
  const closeShared = async (): Promise<void> => {
    if (!options.sharedState) await shared.close();
  };
  const service = createHttpService(runtime, settings, undefined, shared);
  const server = createServer(
    {
      requestTimeout: settings.requestTimeoutMs,
      headersTimeout: settings.headersTimeoutMs,
      // Node enforces both timeouts on this tick (30 s by default); check often enough to honour them.
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(settings.headersTimeoutMs / 4))),
      // A request without Host is refused by the Host/Origin guard (403), not by Node's parser (400).
      requireHostHeader: false,
    },
    nodeListener(service),
  );
  const sweep = setInterval(() => service.sweep(), SWEEP_INTERVAL_MS);
  sweep.unref();
  server.once('close', () => {
    clearInterval(sweep);
    void closeShared();
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    clearInterval(sweep);
    await closeShared();
    throw error;
  });

  return {
    server,
    drain: async (timeoutMs = DEFAULT_DRAIN_MS) => {
      service.stopAccepting();
      const deadline = performance.now() + timeoutMs;
      while (service.inFlight > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      await service.closeSessions();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
