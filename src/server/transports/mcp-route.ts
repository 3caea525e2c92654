import { isJsonContentType, isLegacyRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import { MCP_REVISION } from '../../contract/constants.js';
import { argumentKeyRefusal, type ArgumentKeyRefusal } from './argument-keys.js';

export type JsonRpcId = string | number | null;

/**
 * Where an MCP request goes after the transport guards:
 * - `protocol`: the SDK answers it (405, 415, parse errors, unsupported revisions) without a credential;
 * - `modern`: a 2026-07-28 envelope, served per request;
 * - `legacy`: 2025-era traffic (an `initialize` opens a session; a session id continues one).
 */
export type McpRoute =
  | { kind: 'protocol' }
  | { kind: 'modern'; id: JsonRpcId }
  | { kind: 'legacy'; initialize: boolean; sessionId?: string; clientName?: string };

/** An `Mcp-Name` header that disagrees with the body; answered 400 before any credential is looked at. */
export class McpNameMismatch extends Error {
  constructor(
    readonly id: JsonRpcId,
    readonly header: string,
    readonly body: string,
  ) {
    super(`Bad Request: the Mcp-Name header names "${header}" but the body names "${body}"`);
    this.name = 'McpNameMismatch';
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
/** Header values must be visible ASCII (plus inner spaces); anything else travels as a base64 sentinel. */
const HEADER_SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

function decodeHeaderValue(value: string): string {
  const sentinel = BASE64_SENTINEL.exec(value);
  return sentinel ? Buffer.from(sentinel[1]!, 'base64').toString('utf8') : value;
}

const encodeHeaderValue = (value: string): string => (HEADER_SAFE.test(value) ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`);

function parseJson(body: Uint8Array): unknown {
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

/** Longest declared client name kept; it only tells one client's sessions from another's. */
const MAX_CLIENT_NAME = 256;

/** The `clientInfo.name` an initialize declares (self-declared: used for fairness, never for access). */
function declaredClientName(message: unknown): string | undefined {
  const initialize = (Array.isArray(message) ? message : [message]).find(isInitialize) as Record<string, unknown> | undefined;
  const params = initialize?.params;
  const info = isPlainObject(params) ? params.clientInfo : undefined;
  const name = isPlainObject(info) ? info.name : undefined;
  return typeof name === 'string' ? name.slice(0, MAX_CLIENT_NAME) : undefined;
}

/**
 * Classifies one request and, for modern envelopes, fills the standard headers a plain JSON-RPC
 * client may have left out (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) into `forwarded`.
 * Throws {@link McpNameMismatch} and {@link RefusedArgumentKey}.
 */
export async function routeMcpRequest(method: string, forwarded: Record<string, string>, body: Uint8Array): Promise<McpRoute> {
  const sessionId = forwarded['mcp-session-id'];
  if (method === 'DELETE') return sessionId ? { kind: 'legacy', initialize: false, sessionId } : { kind: 'protocol' };
  if (method !== 'POST') return { kind: 'protocol' };
  if (!isJsonContentType(forwarded['content-type'] ?? '')) return { kind: 'protocol' };
  const message = parseJson(body);
  if (message === undefined) return { kind: 'protocol' };
  const refusal = argumentKeyRefusal(message);
  if (refusal) throw new RefusedArgumentKey(refusal);

  const probe = new Request('http://localhost/mcp', { method: 'POST', headers: forwarded });
  if (await isLegacyRequest(probe, message)) {
    const initialize = Array.isArray(message) ? message.some(isInitialize) : isInitialize(message);
    const clientName = initialize ? declaredClientName(message) : undefined;
    return { kind: 'legacy', initialize, ...(sessionId && { sessionId }), ...(clientName !== undefined && { clientName }) };
  }

  if (!isPlainObject(message) || typeof message.method !== 'string' || !isPlainObject(message.params)) return { kind: 'protocol' };
  const meta = message.params._meta;
  const claimed = isPlainObject(meta) ? meta[PROTOCOL_VERSION_META_KEY] : undefined;
  if (claimed !== MCP_REVISION) return { kind: 'protocol' };

  const id = jsonRpcId(message);
  forwarded['mcp-protocol-version'] ??= MCP_REVISION;
  forwarded['mcp-method'] ??= message.method;
  const field = Object.hasOwn(NAME_SOURCE, message.method) ? NAME_SOURCE[message.method]! : undefined;
  const bodyName = field === undefined ? undefined : message.params[field];
  if (typeof bodyName === 'string') {
    const header = forwarded['mcp-name'];
    if (header === undefined) forwarded['mcp-name'] = encodeHeaderValue(bodyName);
    else if (decodeHeaderValue(header.trim()) !== bodyName) throw new McpNameMismatch(id, header, bodyName);
  }
  return { kind: 'modern', id };
}
