import { isJsonContentType, isLegacyRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { MODERN_PROTOCOL_VERSION } from '../../contract/constants.js';
import { argumentKeyRefusal, type ArgumentKeyRefusal } from './argument-keys.js';

export type JsonRpcId = string | number | null;

/**
 * Where an MCP request goes after the transport guards:
 * - `protocol`: the SDK answers it (405, 415, parse errors, unsupported revisions) without a credential;
 * - `modern`: a 2026-07-28 envelope, served per request;
 * - `legacy`: 2025-era traffic (an `initialize` opens a session; a session id continues one).
 *   `calls` counts its requests (a 2025-03-26 batch holds several), each admitted and limited as
 *   one call; `body` is what to forward, without the client's progress notifications (see
 *   {@link withoutClientProgress}), and absent when nothing is left to forward.
 */
export type McpRoute =
  | { kind: 'protocol' }
  | { kind: 'modern'; id: JsonRpcId }
  | { kind: 'legacy'; initialize: boolean; sessionId?: string; calls: number; body?: Uint8Array<ArrayBuffer> };

/**
 * A 2026-07-28 request whose standard headers (`Mcp-Method`, `Mcp-Name`) are missing or disagree
 * with the body; answered 400 with JSON-RPC -32020 (HeaderMismatch) before any credential is looked at.
 */
export class HeaderMismatch extends Error {
  constructor(
    readonly id: JsonRpcId,
    message: string,
    readonly data: Record<string, unknown>,
  ) {
    super(`Bad Request: ${message}`);
    this.name = 'HeaderMismatch';
  }
}

/** A request the transport refuses before any credential is looked at (400, JSON-RPC `Invalid Request`). */
export class RefusedRequest extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefusedRequest';
  }
}

/** Arguments the SDK would silently drop a key from (see argument-keys.ts); answered -32602 before any credential is looked at. */
export class RefusedArgumentKey extends Error {
  constructor(readonly refusal: ArgumentKeyRefusal) {
    super(refusal.message);
    this.name = 'RefusedArgumentKey';
  }
}

/** The body field that `Mcp-Name` mirrors, per method. */
const NAME_SOURCE: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function decodeHeaderValue(value: string): string {
  const sentinel = BASE64_SENTINEL.exec(value);
  return sentinel ? Buffer.from(sentinel[1]!, 'base64').toString('utf8') : value;
}

/** Deepest nesting of arrays and objects a request body may have; no MCP message needs more. */
const MAX_JSON_DEPTH = 64;

/**
 * Whether the JSON text `body` nests arrays and objects deeper than `limit`: one pass over the
 * raw bytes, before anything parses it (a deep body costs the parser, and every walk of the parsed
 * value after it, far more than its size). Brackets inside strings do not count.
 */
function nestsDeeperThan(body: Uint8Array, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const byte = body[i];
    if (inString) {
      if (byte === 0x5c) i++;
      else if (byte === 0x22) inString = false;
    } else if (byte === 0x22) inString = true;
    else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > limit) return true;
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
  return false;
}

function parseJson(body: Uint8Array): unknown {
  if (nestsDeeperThan(body, MAX_JSON_DEPTH))
    throw new RefusedRequest(`Invalid Request: the body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(new TextDecoder().decode(body));
  } catch {
    return undefined;
  }
}

function jsonRpcId(message: Record<string, unknown>): JsonRpcId {
  return typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
}

const isInitialize = (message: unknown): boolean => isPlainObject(message) && message.method === 'initialize';
const isRequest = (message: unknown): boolean => isPlainObject(message) && typeof message.method === 'string' && message.id !== undefined;
const isClientProgress = (message: unknown): boolean =>
  isPlainObject(message) && message.method === 'notifications/progress' && message.id === undefined;

/** The first revision without JSON-RPC batches (2025-03-26 had them). */
const FIRST_REVISION_WITHOUT_BATCHES = '2025-06-18';

/**
 * The messages left once the client's progress notifications are taken out. This server asks a
 * 2025-era client only for confirmations (form elicitation), and a progress notification about one
 * would only restart its timeout: a client could hold the question, and the call's in-flight slot,
 * open for ever.
 */
function withoutClientProgress(message: unknown): unknown[] {
  return (Array.isArray(message) ? message : [message]).filter((entry) => !isClientProgress(entry));
}

function legacyRoute(
  message: unknown,
  body: Uint8Array<ArrayBuffer>,
  revision: string | undefined,
  sessionId: string | undefined,
): McpRoute {
  if (Array.isArray(message) && revision !== undefined && revision >= FIRST_REVISION_WITHOUT_BATCHES) {
    throw new RefusedRequest(`Invalid Request: MCP ${revision} has no JSON-RPC batches; send one message per request`);
  }
  const initialize = Array.isArray(message) ? message.some(isInitialize) : isInitialize(message);
  const kept = withoutClientProgress(message);
  const unchanged = kept.length === (Array.isArray(message) ? message.length : 1);
  const forward = unchanged
    ? body
    : kept.length === 0
      ? undefined
      : new TextEncoder().encode(JSON.stringify(Array.isArray(message) ? kept : kept[0]));
  const calls = Math.max(1, kept.filter(isRequest).length);
  return { kind: 'legacy', initialize, ...(sessionId && { sessionId }), calls, ...(forward && { body: forward }) };
}

/**
 * Classifies one request. A modern envelope must carry the standard headers the specification
 * requires (`Mcp-Method`, and `Mcp-Name` where the method names a tool, prompt or resource), each
 * agreeing with the body; `MCP-Protocol-Version`, which the body's `_meta` states too, is filled into
 * `forwarded` when left out. Throws {@link HeaderMismatch}, {@link RefusedArgumentKey} and {@link RefusedRequest}.
 */
export async function routeMcpRequest(method: string, forwarded: Record<string, string>, body: Uint8Array<ArrayBuffer>): Promise<McpRoute> {
  const sessionId = forwarded['mcp-session-id'];
  if (method === 'DELETE') return sessionId ? { kind: 'legacy', initialize: false, sessionId, calls: 1, body } : { kind: 'protocol' };
  if (method !== 'POST') return { kind: 'protocol' };
  if (!isJsonContentType(forwarded['content-type'] ?? '')) return { kind: 'protocol' };
  const message = parseJson(body);
  if (message === undefined) return { kind: 'protocol' };
  const refusal = argumentKeyRefusal(message);
  if (refusal) throw new RefusedArgumentKey(refusal);

  const probe = new Request('http://localhost/mcp', { method: 'POST', headers: forwarded });
  if (await isLegacyRequest(probe, message)) return legacyRoute(message, body, forwarded['mcp-protocol-version']?.trim(), sessionId);

  if (!isPlainObject(message) || typeof message.method !== 'string' || !isPlainObject(message.params)) return { kind: 'protocol' };
  const meta = message.params._meta;
  const claimed = isPlainObject(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
  if (claimed !== MODERN_PROTOCOL_VERSION) return { kind: 'protocol' };

  const id = jsonRpcId(message);
  forwarded['mcp-protocol-version'] ??= MODERN_PROTOCOL_VERSION;
  if (forwarded['mcp-method'] === undefined) {
    throw new HeaderMismatch(id, `the body names method ${message.method} but the required Mcp-Method header is absent`, {
      missing: 'Mcp-Method',
    });
  }
  const field = Object.hasOwn(NAME_SOURCE, message.method) ? NAME_SOURCE[message.method]! : undefined;
  const bodyName = field === undefined ? undefined : message.params[field];
  if (typeof bodyName === 'string') {
    const header = forwarded['mcp-name'];
    if (header === undefined)
      throw new HeaderMismatch(id, `the body names ${JSON.stringify(bodyName)} but the required Mcp-Name header is absent`, {
        missing: 'Mcp-Name',
      });
    if (decodeHeaderValue(header.trim()) !== bodyName) {
      throw new HeaderMismatch(id, `the Mcp-Name header names "${header}" but the body names "${bodyName}"`, {
        mismatch: { header, body: bodyName },
      });
    }
  }
  return { kind: 'modern', id };
}
