import { createMcpHandler, type McpHttpHandler } from '@modelcontextprotocol/server';
import { createServerFactory, type CredentialSession, type ServerRuntime } from '../server.js';
import { StatusError } from '../errors.js';
import { INVALID_PARAMS } from './argument-keys.js';
import { BodyTooLargeError, readBodyWithin } from './body-limit.js';
import { isLoopbackAddress } from '../../contract/loopback-address.js';
import { createHostGuard } from './host-guard.js';
import { CredentialFailure, credentialsFromHeaders, rejectCredentialHeaders, type HeaderRecord } from './http-credentials.js';
import { MAX_BODY_BYTES, type HttpSettings } from './http-settings.js';
import { LegacySessions, type LegacyLease } from './legacy-sessions.js';
import type { InFlightRefusal } from './in-flight.js';
import type { LimitSlot, RateRefusal } from './limit-store.js';
import { HeaderMismatch, RefusedArgumentKey, RefusedRequest, routeMcpRequest, type JsonRpcId, type McpRoute } from './mcp-route.js';
import { inProcessState, SharedStateUnavailable, type SharedState } from './shared-state.js';
import { createOAuthResourceServer, isResourceMetadataPath, type OAuthPrincipal, type OAuthRefusal } from './oauth.js';
import { credentialsForSubject } from './principal-credentials.js';
import type { Credentials } from '../config.js';

/**
 * Streamable HTTP at /mcp (and /api/mcp) serving both eras behind the guards of CONTRACT §11.3,
 * as a Web-standard `Request` → `Response` function. `b2-mcp http` runs it behind node:http;
 * `createFetchHandler` hands it to serverless platforms.
 */

export const MCP_PATHS = new Set(['/mcp', '/api/mcp']);
const HEALTH_PATHS = new Set(['/health', '/ready', '/api/health']);
const MCP_METHODS = new Set(['GET', 'POST', 'DELETE']);
const MCP_ALLOW = 'GET, POST, DELETE';
/** The health document names the service, not the MCP server identity. */
const HEALTH_SERVER_NAME = 'backblaze-b2-mcp';

/** Only these request headers reach the MCP handler; credentials and cookies never do. */
const FORWARDED_HEADERS = new Set(['accept', 'content-type', 'content-length', 'last-event-id', 'traceparent', 'tracestate', 'baggage']);

const SWEEP_INTERVAL_MS = 60_000;
export const LEGACY_SESSION_IDLE_MS = 30 * 60_000;

/** What the platform knows about the connection that the request itself does not say. */
export interface PeerInfo {
  /** The socket's remote address, when there is a socket. */
  address?: string | undefined;
}

export interface HttpService {
  handle(request: Request, peer?: PeerInfo): Promise<Response>;
  /** Requests whose response has not finished yet. */
  readonly inFlight: number;
  /** From now on every request is answered 503 (graceful shutdown). */
  stopAccepting(): void;
  /** Closes idle legacy sessions and forgets idle rate-limit buckets. */
  sweep(): void;
  /** Closes every legacy session. */
  closeSessions(): Promise<void>;
}

/** JSON-RPC `Invalid Request`. */
const INVALID_REQUEST = -32600;
/** A 2026-07-28 request whose standard headers are missing or disagree with its body. */
const HEADER_MISMATCH = -32020;

/** Response or forwarded request headers by lower-case name. */
type HeaderMap = Record<string, string>;

function json(status: number, body: unknown, headers: HeaderMap = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

function jsonRpcError(status: number, id: JsonRpcId, code: number, message: string, data?: unknown): Response {
  return json(status, { jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } });
}

const retryLater = (status: 429 | 503, error: string): Response => json(status, { error }, { 'retry-after': '1' });

function admissionRefusal(refusal: InFlightRefusal | RateRefusal): Response {
  if (refusal === 'global') return retryLater(503, 'Server busy: too many requests in flight');
  if (refusal === 'key') return retryLater(429, 'Too many requests in flight for this client');
  return retryLater(429, 'Rate limit exceeded');
}

function oauthRefusal(refusal: OAuthRefusal): Response {
  const headers: HeaderMap = refusal.wwwAuthenticate
    ? { 'www-authenticate': refusal.wwwAuthenticate }
    : refusal.status === 503
      ? { 'retry-after': '1' }
      : {};
  return json(refusal.status, { error: refusal.error, error_description: refusal.description }, headers);
}

function forwardedHeaders(headers: HeaderRecord): HeaderMap {
  const forwarded: HeaderMap = {};
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string' && (FORWARDED_HEADERS.has(name) || name.startsWith('mcp-'))) forwarded[name] = value;
  }
  return forwarded;
}

const firstValue = (headers: HeaderRecord, name: string): string | undefined => {
  const value = headers[name];
  return (typeof value === 'string' ? value : undefined)?.trim() || undefined;
};

/** An address as some proxies write it with the client's port (`192.0.2.7:51234`, `[2001:db8::1]:443`): without it. */
const WITH_PORT = /^(?:(\d{1,3}(?:\.\d{1,3}){3})|\[([0-9A-Fa-f:.]+)\]):\d{1,5}$/;

/**
 * The client's address from `X-Forwarded-For` behind `hops` trusted proxies that each append the
 * address they were reached from: the entry `hops` from the end. Entries before it were written by
 * the client itself, so the first entry is never trusted unless the chain is that short. A port
 * is dropped, or every connection would count as another client.
 */
function forwardedClientAddress(forwardedFor: string, hops: number): string | undefined {
  const entries = forwardedFor
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const entry = entries[Math.max(0, entries.length - hops)];
  const withPort = entry === undefined ? null : WITH_PORT.exec(entry);
  return withPort ? (withPort[1] ?? withPort[2]) : entry;
}

/** A failure that answers the request with its own status and code (credential and upstream failures while resolving a session). */
function answerableFailure(error: unknown): StatusError | undefined {
  return error instanceof StatusError && error.status >= 400 && error.status <= 599 ? error : undefined;
}

/** Calls `done` once, when the response body has been read to its end, failed or been cancelled. */
function onBodyDone(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  const reader = response.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const chunk = await reader.read();
        if (chunk.done) {
          done();
          controller.close();
        } else controller.enqueue(chunk.value);
      } catch (error) {
        done();
        controller.error(error);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * `shared` holds the limits and legacy-session ownership (see shared-state.ts); without it they
 * stay in this process, on `now`.
 */
export function createHttpService(
  runtime: ServerRuntime,
  settings: HttpSettings,
  now: () => number = () => performance.now(),
  shared: SharedState = inProcessState(settings, now),
): HttpService {
  const { logger, sanitizer } = runtime;
  const oauth = settings.oauth && createOAuthResourceServer(settings.oauth);
  const hostAllowed = createHostGuard(settings);
  const limits = shared.limits;
  const sessions = new LegacySessions(settings.maxInFlight, settings.maxInFlightPerKey, LEGACY_SESSION_IDLE_MS, now, shared.sessions);
  // Raw: the logger sanitizes in log mode, keeping the Error's name and message (pre-sanitizing as a result left {}).
  const onerror = (error: Error): void => logger.error('http.mcp_error', { error });

  // Protocol-only traffic (GET/DELETE without a session, non-JSON bodies, other revisions) is
  // answered by the SDK from a server with no tools: it needs no credential and reaches no backend.
  const protocolHandler = createMcpHandler(
    createServerFactory(runtime, { surface: [], prompts: [], capabilities: new Set(), protectedValues: [] }),
    { onerror },
  );
  const handlers = new WeakMap<CredentialSession, McpHttpHandler>();
  const handlerFor = (session: CredentialSession): McpHttpHandler => {
    let handler = handlers.get(session);
    if (!handler) {
      handler = createMcpHandler(session.factory, { onerror });
      handlers.set(session, handler);
    }
    return handler;
  };

  let accepting = true;
  let lastSweep = now();
  const sweep = (): void => {
    lastSweep = now();
    limits.sweep();
    sessions.sweep();
  };

  const clientAddress = (headers: HeaderRecord, peer: PeerInfo): string => {
    if (settings.trustProxyHeaders) {
      const forwardedFor = firstValue(headers, 'x-forwarded-for');
      const proxied = (forwardedFor && forwardedClientAddress(forwardedFor, settings.trustedProxyHops)) || firstValue(headers, 'x-real-ip');
      if (proxied) return proxied;
    }
    return peer.address ?? 'unknown';
  };

  const health = (method: string): Response => {
    if (method !== 'GET' && method !== 'HEAD') return json(405, { error: 'Method not allowed' }, { allow: 'GET' });
    const counters = { activeSessions: sessions.size, inFlightRequests: limits.localInFlight, openSubscriptions: 0 };
    const ready = settings.credentialMode !== 'server' || runtime.config.credentials !== undefined;
    if (!ready) {
      return json(503, {
        status: 'error',
        server: HEALTH_SERVER_NAME,
        version: runtime.version,
        error: 'Credential configuration invalid',
        ...counters,
      });
    }
    return json(200, { status: 'ok', server: HEALTH_SERVER_NAME, version: runtime.version, ...counters });
  };

  /** The request's B2 key: its headers', the server's own (undefined), or the one mapped to the token's subject. */
  const requestCredentials = (headerRecord: HeaderRecord, principal: OAuthPrincipal | undefined): Credentials | undefined => {
    if (settings.credentialMode === 'headers') return credentialsFromHeaders(headerRecord);
    if (settings.credentialMode === 'server') return undefined;
    const mapped =
      principal &&
      settings.principals &&
      settings.oauth &&
      credentialsForSubject(settings.principals, settings.oauth.issuer, principal.subject);
    if (!mapped)
      throw new CredentialFailure(
        403,
        'principal_not_mapped',
        "No B2 key is mapped to this token's subject (B2_PRINCIPAL_CREDENTIAL_MAP).",
      );
    return mapped;
  };

  /** Hands the request (allowed headers and the already-read body only) to an MCP leg. */
  const forward = (
    request: Request,
    headers: HeaderMap,
    body: Uint8Array<ArrayBuffer>,
    fetch: (request: Request) => Promise<Response>,
  ): Promise<Response> => {
    const hasBody = body.byteLength > 0 && request.method !== 'GET' && request.method !== 'HEAD';
    return fetch(new Request(request.url, { method: request.method, headers, signal: request.signal, ...(hasBody && { body }) }));
  };

  /** A credential (or upstream) failure: JSON-RPC for modern requests, plain JSON otherwise. */
  const failureResponse = (route: McpRoute, failure: StatusError): Response => {
    const message = sanitizer.text(failure.message);
    if (route.kind === 'modern') {
      const code = failure.status < 500 ? -32001 : -32603;
      return jsonRpcError(failure.status, route.id, code, message, { code: failure.code, status: failure.status });
    }
    return json(failure.status, { error: message, code: failure.code });
  };

  const serveMcp = async (request: Request, peer: PeerInfo, method: string, headerRecord: HeaderRecord): Promise<Response> => {
    const address = clientAddress(headerRecord, peer);
    const slot = await limits.admit(`address:${address}`);
    if (typeof slot === 'string') return admissionRefusal(slot);
    // One slot per call the request makes (a 2025-03-26 batch makes several), each released once.
    const slots = [slot];
    let lease: LegacyLease | undefined;
    const release = (): void => {
      for (const held of slots) held.release();
      lease?.release();
    };
    request.signal.addEventListener('abort', release, { once: true });
    // The client may have gone while the slot was being taken (an abort event that already fired).
    if (request.signal.aborted) release();
    try {
      return onBodyDone(await admitted(request, method, headerRecord, address, slots, (opened) => (lease = opened)), release);
    } catch (error) {
      release();
      throw error;
    }
  };

  const admitted = async (
    request: Request,
    method: string,
    headerRecord: HeaderRecord,
    address: string,
    slots: LimitSlot[],
    holdLease: (lease: LegacyLease) => void,
  ): Promise<Response> => {
    const addressKey = `address:${address}`;
    let principal: OAuthPrincipal | undefined;
    if (oauth) {
      const verdict = await oauth.authenticate(request.headers.get('authorization'));
      if (!('key' in verdict)) {
        logger.debug('http.oauth_refused', { status: verdict.status, error: verdict.error });
        return oauthRefusal(verdict);
      }
      principal = verdict;
    }

    let body: Uint8Array<ArrayBuffer>;
    try {
      body = await readBodyWithin(request, MAX_BODY_BYTES);
    } catch (error) {
      if (error instanceof BodyTooLargeError) return json(413, { error: 'Request body too large' }, { connection: 'close' });
      return json(400, { error: 'Request body could not be read' }, { connection: 'close' });
    }

    const headers = forwardedHeaders(headerRecord);
    let route: McpRoute;
    try {
      route = await routeMcpRequest(method, headers, body);
    } catch (error) {
      // Bad arguments are an ordinary JSON-RPC error (HTTP 200), as the SDK answers them.
      if (error instanceof RefusedArgumentKey) return jsonRpcError(200, error.refusal.id, INVALID_PARAMS, error.refusal.message);
      if (error instanceof RefusedRequest) return jsonRpcError(400, null, INVALID_REQUEST, error.message);
      if (!(error instanceof HeaderMismatch)) throw error;
      return jsonRpcError(400, error.id, HEADER_MISMATCH, error.message, error.data);
    }

    for (let call = 1; call < (route.kind === 'legacy' ? route.calls : 1); call++) {
      const more = await limits.admit(addressKey);
      if (typeof more === 'string') return admissionRefusal(more);
      slots.push(more);
    }

    let session: CredentialSession;
    let ownerKey = addressKey;
    try {
      if (settings.credentialMode !== 'headers') rejectCredentialHeaders(headerRecord, settings.credentialMode);
      if (route.kind === 'protocol') return await forward(request, headers, body, protocolHandler.fetch);
      const credentials = requestCredentials(headerRecord, principal);
      // The B2 credential, else the token's subject, is who the per-caller limits count.
      const callerKey = credentials ? `credential:${shared.credentialKey(credentials)}` : principal && `principal:${principal.key}`;
      if (callerKey) {
        for (const held of slots) {
          const counted = await held.countAlso(callerKey);
          if (counted === 'key') return retryLater(429, `Too many requests in flight for this ${credentials ? 'credential' : 'principal'}`);
          if (counted === 'rate') return retryLater(429, 'Rate limit exceeded');
        }
        ownerKey = callerKey;
      }
      // A legacy session belongs to the token's subject and scope too: a narrower token cannot resume a wider session.
      if (principal) ownerKey = `${ownerKey}|principal:${principal.key}:${principal.ceiling}`;
      session = await runtime.sessionFor(credentials, principal?.ceiling, principal?.key);
    } catch (error) {
      const known = answerableFailure(error);
      if (!known) throw error;
      if (known.status >= 500) logger.warn('http.session_failed', { status: known.status, code: known.code });
      return failureResponse(route, known);
    }

    if (route.kind === 'modern') return forward(request, headers, body, handlerFor(session).fetch);
    const legacyBody = route.body;
    // Only the client's progress notifications were sent: nothing is delivered (see mcp-route.ts).
    const deliver = (fetch: (request: Request) => Promise<Response>): Promise<Response> =>
      legacyBody === undefined
        ? Promise.resolve(new Response(null, { status: 202 }))
        : forward(request, { ...headers, 'content-length': String(legacyBody.byteLength) }, legacyBody, fetch);
    if (route.sessionId !== undefined) {
      const resumed = sessions.resume(ownerKey, route.sessionId);
      if (resumed === 'not_found') {
        if ((await shared.sessions.holder(route.sessionId)) === 'elsewhere') {
          return jsonRpcError(421, null, -32001, 'Session held by another instance: route requests by Mcp-Session-Id (sticky sessions)');
        }
        return jsonRpcError(404, null, -32001, 'Session not found');
      }
      holdLease(resumed);
      return deliver(resumed.fetch);
    }
    if (!route.initialize) return deliver(handlerFor(session).fetch);
    const opened = sessions.open(ownerKey, address, session.factory);
    if (opened === 'global') return retryLater(503, 'Server busy: too many open sessions');
    if (opened === 'key') return retryLater(429, 'Too many open sessions for this client');
    holdLease(opened);
    return deliver(opened.fetch);
  };

  const route = async (request: Request, peer: PeerInfo, method: string, path: string): Promise<Response> => {
    if (!accepting) return json(503, { error: 'Server is shutting down' }, { connection: 'close', 'retry-after': '1' });
    const isMcp = MCP_PATHS.has(path);
    const isHealth = HEALTH_PATHS.has(path);
    const isMetadata = oauth !== undefined && isResourceMetadataPath(path);
    if (!isMcp && !isHealth && !isMetadata) return json(404, { error: 'Not found' });
    const headerRecord: HeaderRecord = Object.fromEntries(request.headers);
    const hostCheck = {
      host: firstValue(headerRecord, 'host'),
      origin: firstValue(headerRecord, 'origin'),
      loopbackHealthProbe: isHealth && isLoopbackAddress(peer.address),
    };
    if (!hostAllowed(hostCheck)) return json(403, { error: 'Host/Origin not allowed' });
    if (isHealth) return health(method);
    if (isMetadata)
      return method === 'GET' || method === 'HEAD'
        ? json(200, oauth!.metadata(), { 'cache-control': 'max-age=300' })
        : json(405, { error: 'Method not allowed' }, { allow: 'GET' });
    if (!MCP_METHODS.has(method)) return json(405, { error: 'Method not allowed' }, { allow: MCP_ALLOW });
    return serveMcp(request, peer, method, headerRecord);
  };

  return {
    handle: async (request, peer = {}) => {
      const started = now();
      if (started - lastSweep >= SWEEP_INTERVAL_MS) sweep();
      const method = request.method.toUpperCase();
      const path = new URL(request.url).pathname;
      let response: Response;
      try {
        response = await route(request, peer, method, path);
      } catch (error) {
        if (error instanceof SharedStateUnavailable) response = retryLater(503, error.message);
        else {
          logger.error('http.internal_error', { method, path, error });
          response = jsonRpcError(500, null, -32603, 'Internal server error');
        }
      }
      logger.debug('http.request', { method, path, status: response.status, durationMs: Math.round(now() - started) });
      return response;
    },
    get inFlight() {
      return limits.localInFlight;
    },
    stopAccepting: () => {
      accepting = false;
    },
    sweep,
    closeSessions: () => sessions.closeAll(),
  };
}
