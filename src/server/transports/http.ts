import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createServerFactory, type CredentialSession, type ServerRuntime } from '../server.js';
import { BodyTooLargeError, lingerOnClose, readBodyWithin } from './body-limit.js';
import { createHostGuard, isLoopbackAddress } from './host-guard.js';
import { CredentialFailure, credentialKey, credentialsFromHeaders, rejectCredentialHeaders } from './http-credentials.js';
import { loadHttpSettings, MAX_BODY_BYTES, type HttpSettings } from './http-settings.js';
import { InFlightLimiter } from './in-flight.js';
import { LegacySessions, type LegacyLease } from './legacy-sessions.js';
import { INVALID_PARAMS } from './argument-keys.js';
import { McpNameMismatch, RefusedArgumentKey, routeMcpRequest, type JsonRpcId, type McpRoute } from './mcp-route.js';
import { TokenBuckets } from './rate-limit.js';

export const MCP_PATHS = new Set(['/mcp', '/api/mcp']);
const HEALTH_PATHS = new Set(['/health', '/ready', '/api/health']);
const MCP_METHODS = new Set(['GET', 'POST', 'DELETE']);
const MCP_ALLOW = 'GET, POST, DELETE';
/** The health document names the service, not the MCP server identity. */
const HEALTH_SERVER_NAME = 'backblaze-b2-mcp';

/** Only these request headers reach the MCP handler; credentials and cookies never do. */
const FORWARDED_HEADERS = new Set(['accept', 'content-type', 'content-length', 'last-event-id', 'traceparent', 'tracestate', 'baggage']);

const SWEEP_INTERVAL_MS = 60_000;
const LEGACY_SESSION_IDLE_MS = 30 * 60_000;
/** Below the CLI's 10 s hard stop, so a drain always finishes on its own. */
const DEFAULT_DRAIN_MS = 9_000;

export interface HttpOptions {
  port: number;
  host: string;
  /** Transport settings (allowlists, limits, credential mode); defaults apply when omitted. */
  settings?: HttpSettings;
}

export interface HttpHandle {
  server: Server;
  /**
   * Graceful shutdown: new requests get 503 while in-flight ones finish (up to `timeoutMs`),
   * then sessions and connections are closed.
   */
  drain(timeoutMs?: number): Promise<void>;
}

type Headers = Record<string, string>;

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function jsonRpcError(res: ServerResponse, status: number, id: JsonRpcId, code: number, message: string, data?: unknown): void {
  sendJson(res, status, { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } });
}

function forwardedHeaders(headers: IncomingHttpHeaders): Headers {
  const forwarded: Headers = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || !(FORWARDED_HEADERS.has(name) || name.startsWith('mcp-'))) continue;
    forwarded[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return forwarded;
}

function firstHeader(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
}

/** Errors that carry an HTTP status and a stable code (B2 credential and upstream failures while resolving a session). */
function statusError(error: unknown): { status: number; code: string; message: string } | undefined {
  if (!(error instanceof Error)) return undefined;
  const { status, code } = error as Error & { status?: unknown; code?: unknown };
  return typeof status === 'number' && status >= 400 && status <= 599 && typeof code === 'string' ? { status, code, message: error.message } : undefined;
}

/** Streamable HTTP at /mcp (and /api/mcp) serving both eras behind the guards of CONTRACT §11.3. */
export async function serveOverHttp(runtime: ServerRuntime, options: HttpOptions): Promise<HttpHandle> {
  const settings = options.settings ?? loadHttpSettings({});
  const { logger, sanitizer } = runtime;
  const hostAllowed = createHostGuard(settings);
  const inFlight = new InFlightLimiter(settings.maxInFlight, settings.maxInFlightPerKey);
  const buckets = new TokenBuckets(settings.rateLimit.perSecond, settings.rateLimit.burst);
  const sessions = new LegacySessions(settings.maxInFlight, settings.maxInFlightPerKey, LEGACY_SESSION_IDLE_MS);
  // Raw: the logger sanitizes in log mode, keeping the Error's name and message (pre-sanitizing as a result left {}).
  const onerror = (error: Error): void => logger.error('http.mcp_error', { error });

  // Protocol-only traffic (GET/DELETE without a session, non-JSON bodies, other revisions) is
  // answered by the SDK from a server with no tools: it needs no credential and reaches no backend.
  const protocolHandler = createMcpHandler(createServerFactory(runtime, { surface: [], prompts: [], capabilities: new Set() }), { onerror });
  const handlers = new WeakMap<CredentialSession, McpHttpHandler>();
  const handlerFor = (session: CredentialSession): McpHttpHandler => {
    let handler = handlers.get(session);
    if (!handler) {
      handler = createMcpHandler(session.factory, { onerror });
      handlers.set(session, handler);
    }
    return handler;
  };

  let draining = false;

  const clientAddress = (req: IncomingMessage): string => {
    if (settings.trustProxyHeaders) {
      const forwardedFor = firstHeader(req.headers, 'x-forwarded-for')?.split(',')[0]?.trim();
      const proxied = forwardedFor || firstHeader(req.headers, 'x-real-ip');
      if (proxied) return proxied;
    }
    return req.socket.remoteAddress ?? 'unknown';
  };

  const health = (res: ServerResponse, method: string): void => {
    if (method !== 'GET' && method !== 'HEAD') return sendJson(res, 405, { error: 'Method not allowed' }, { allow: 'GET' });
    const counters = { activeSessions: sessions.size, inFlightRequests: inFlight.total, openSubscriptions: 0 };
    const ready = settings.credentialMode === 'headers' || runtime.config.credentials !== undefined;
    if (!ready) {
      return sendJson(res, 503, { status: 'error', server: HEALTH_SERVER_NAME, version: runtime.version, error: 'Credential configuration invalid', ...counters });
    }
    sendJson(res, 200, { status: 'ok', server: HEALTH_SERVER_NAME, version: runtime.version, ...counters });
  };

  /** Hands the request (allowed headers and the already-read body only) to an MCP leg. */
  const forward = (req: IncomingMessage, res: ServerResponse, headers: Headers, body: Buffer, fetch: (request: Request) => Promise<Response>): Promise<void> => {
    const request = {
      method: req.method,
      url: req.url,
      headers,
      async *[Symbol.asyncIterator]() {
        if (body.byteLength > 0) yield body;
      },
    };
    return toNodeHandler({ fetch }, { onerror, maxRequestBodySize: MAX_BODY_BYTES })(request, res);
  };

  /** A credential (or upstream) failure: JSON-RPC for modern requests, plain JSON otherwise. */
  const failureResponse = (res: ServerResponse, route: McpRoute, failure: { status: number; code: string; message: string }): void => {
    const message = sanitizer.text(failure.message);
    if (route.kind === 'modern') {
      const code = failure.status < 500 ? -32001 : -32603;
      return jsonRpcError(res, failure.status, route.id, code, message, { code: failure.code, status: failure.status });
    }
    sendJson(res, failure.status, { error: message, code: failure.code });
  };

  const serveMcp = async (req: IncomingMessage, res: ServerResponse, method: string): Promise<void> => {
    const addressKey = `address:${clientAddress(req)}`;
    const slot = inFlight.acquire(addressKey);
    if (slot === 'global') return sendJson(res, 503, { error: 'Server busy: too many requests in flight' }, { 'retry-after': '1' });
    if (slot === 'key') return sendJson(res, 429, { error: 'Too many requests in flight for this client' }, { 'retry-after': '1' });
    let lease: LegacyLease | undefined;
    res.once('close', () => {
      slot.release();
      lease?.release();
    });
    if (!buckets.take(addressKey)) return sendJson(res, 429, { error: 'Rate limit exceeded' }, { 'retry-after': '1' });

    let body: Buffer;
    try {
      body = await readBodyWithin(req, MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        lingerOnClose(req);
        return sendJson(res, 413, { error: 'Request body too large' }, { connection: 'close' });
      }
      res.destroy();
      return;
    }

    const headers = forwardedHeaders(req.headers);
    let route: McpRoute;
    try {
      route = await routeMcpRequest(method, headers, body);
    } catch (error) {
      // Bad arguments are an ordinary JSON-RPC error (HTTP 200), as the SDK answers them.
      if (error instanceof RefusedArgumentKey) return jsonRpcError(res, 200, error.refusal.id, INVALID_PARAMS, error.refusal.message);
      if (!(error instanceof McpNameMismatch)) throw error;
      return jsonRpcError(res, 400, error.id, -32020, error.message, { mismatch: { header: error.header, body: error.body } });
    }

    let session: CredentialSession;
    let ownerKey = addressKey;
    try {
      if (settings.credentialMode === 'server') rejectCredentialHeaders(req.headers);
      if (route.kind === 'protocol') return await forward(req, res, headers, body, protocolHandler.fetch);
      const credentials = settings.credentialMode === 'headers' ? credentialsFromHeaders(req.headers) : undefined;
      if (credentials) {
        ownerKey = `credential:${credentialKey(credentials)}`;
        if (!slot.rekey(ownerKey)) return sendJson(res, 429, { error: 'Too many requests in flight for this credential' }, { 'retry-after': '1' });
        if (!buckets.take(ownerKey)) return sendJson(res, 429, { error: 'Rate limit exceeded' }, { 'retry-after': '1' });
      }
      session = await runtime.sessionFor(credentials);
    } catch (error) {
      if (error instanceof CredentialFailure) return failureResponse(res, route, error);
      const known = statusError(error);
      if (!known) throw error;
      if (known.status >= 500) logger.warn('http.session_failed', { status: known.status, code: known.code });
      return failureResponse(res, route, known);
    }

    if (route.kind === 'modern') return forward(req, res, headers, body, handlerFor(session).fetch);
    if (route.sessionId !== undefined) {
      const resumed = sessions.resume(ownerKey, route.sessionId);
      if (resumed === 'not_found') return jsonRpcError(res, 404, null, -32001, 'Session not found');
      lease = resumed;
      return forward(req, res, headers, body, resumed.fetch);
    }
    if (!route.initialize) return forward(req, res, headers, body, handlerFor(session).fetch);
    const opened = sessions.open(ownerKey, session.factory, route.clientName);
    if (opened === 'global') return sendJson(res, 503, { error: 'Server busy: too many open sessions' }, { 'retry-after': '1' });
    if (opened === 'key') return sendJson(res, 429, { error: 'Too many open sessions for this client' }, { 'retry-after': '1' });
    lease = opened;
    return forward(req, res, headers, body, opened.fetch);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const method = (req.method ?? 'GET').toUpperCase();
    const path = (req.url ?? '/').split('?')[0]!;
    res.once('finish', () => logger.debug('http.request', { method, path, status: res.statusCode, durationMs: Math.round(performance.now() - started) }));
    try {
      if (draining) return sendJson(res, 503, { error: 'Server is shutting down' }, { connection: 'close', 'retry-after': '1' });
      const isMcp = MCP_PATHS.has(path);
      const isHealth = HEALTH_PATHS.has(path);
      if (!isMcp && !isHealth) return sendJson(res, 404, { error: 'Not found' });
      const hostCheck = {
        host: firstHeader(req.headers, 'host'),
        origin: firstHeader(req.headers, 'origin'),
        loopbackHealthProbe: isHealth && isLoopbackAddress(req.socket.remoteAddress),
      };
      if (!hostAllowed(hostCheck)) return sendJson(res, 403, { error: 'Host/Origin not allowed' });
      if (isHealth) return health(res, method);
      if (!MCP_METHODS.has(method)) return sendJson(res, 405, { error: 'Method not allowed' }, { allow: MCP_ALLOW });
      await serveMcp(req, res, method);
    } catch (error) {
      logger.error('http.internal_error', { method, path, error });
      jsonRpcError(res, 500, null, -32603, 'Internal server error');
    }
  };

  const server = createServer(
    {
      requestTimeout: settings.requestTimeoutMs,
      headersTimeout: settings.headersTimeoutMs,
      // Node enforces both timeouts on this tick (30 s by default); check often enough to honour them.
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(settings.headersTimeoutMs / 4))),
      // A request without Host is refused by the Host/Origin guard (403), not by Node's parser (400).
      requireHostHeader: false,
    },
    (req, res) => void handle(req, res),
  );
  const sweep = setInterval(() => {
    buckets.sweep();
    sessions.sweep();
  }, SWEEP_INTERVAL_MS);
  sweep.unref();
  server.once('close', () => clearInterval(sweep));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  return {
    server,
    drain: async (timeoutMs = DEFAULT_DRAIN_MS) => {
      draining = true;
      const deadline = performance.now() + timeoutMs;
      while (inFlight.total > 0 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      await sessions.closeAll();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    },
  };
}
