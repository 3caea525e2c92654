import { request, type IncomingHttpHeaders } from 'node:http';
import { MODERN_PROTOCOL_VERSION } from '../../src/contract/constants.js';

/** Raw HTTP for transport tests: full control over Host, Origin, framing and timing. */

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json(): unknown;
}

export interface RawRequestOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send no Host header at all. */
  omitHost?: boolean;
}

export interface StreamingRequest {
  write(chunk: string | Buffer): boolean;
  end(chunk?: string | Buffer): void;
  /** Settles when the response has been read completely. */
  response: Promise<RawResponse>;
  /** True once any response bytes arrived (e.g. an early 413). */
  answered(): boolean;
}

/** Opens a request and leaves the body to the caller (chunked unless `content-length` is set). */
export function openRequest(base: URL, options: RawRequestOptions = {}): StreamingRequest {
  let answered = false;
  const req = request({
    host: base.hostname,
    port: base.port,
    method: options.method ?? 'POST',
    path: options.path ?? '/mcp',
    headers: options.headers,
    setHost: !options.omitHost,
    agent: false,
  });
  const response = new Promise<RawResponse>((resolve, reject) => {
    req.once('response', (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.once('error', reject);
    });
    // The server may close the socket while the body is still being written (413); the response wins.
    req.once('error', (error) => {
      if (!answered) reject(error);
    });
  });
  return { write: (chunk) => req.write(chunk), end: (chunk) => req.end(chunk), response, answered: () => answered };
}

export function rawRequest(base: URL, options: RawRequestOptions = {}): Promise<RawResponse> {
  const open = openRequest(base, options);
  open.end(options.body);
  return open.response;
}

export const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
/** What a modern client sends beside a tools/list (see {@link standardHeaders}). */
export const LIST_HEADERS = { ...JSON_HEADERS, 'mcp-method': 'tools/list' };

/** A 2026-07-28 request with the per-request `_meta` envelope. */
export function modernMessage(method: string, params: Record<string, unknown> = {}, id: number | string = 1): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': MODERN_PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'http-test', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  };
}

/** A 2025-era `initialize` request. */
export function legacyInitialize(id: number | string = 0): Record<string, unknown> {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'http-test', version: '1' } },
  };
}

/** The body fields `Mcp-Name` mirrors, per method. */
const NAMED_BY: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/**
 * The standard headers a 2026-07-28 client sends beside `message` (`Mcp-Method`, and `Mcp-Name`
 * for a method that names something, base64-wrapped when not plain ASCII); none for other messages.
 */
export function standardHeaders(message: unknown): Record<string, string> {
  const { method, params } = (message ?? {}) as {
    method?: unknown;
    params?: { _meta?: Record<string, unknown>; [field: string]: unknown };
  };
  if (typeof method !== 'string' || params?._meta?.['io.modelcontextprotocol/protocolVersion'] !== MODERN_PROTOCOL_VERSION) return {};
  const name = Object.hasOwn(NAMED_BY, method) ? params[NAMED_BY[method]!] : undefined;
  if (typeof name !== 'string') return { 'mcp-method': method };
  const ascii = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(name);
  return { 'mcp-method': method, 'mcp-name': ascii ? name : `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=` };
}

/** POSTs `message` as JSON, with the standard headers a modern client sends beside it. */
export function postJson(base: URL, message: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(base, { headers: { ...JSON_HEADERS, ...standardHeaders(message), ...headers }, body: JSON.stringify(message) });
}
