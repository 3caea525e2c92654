/** Small HTTP helpers shared by the sandbox's listeners. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SandboxError } from './errors.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

/** Read the whole request body, refusing more than `limit` bytes with B2's 400. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new SandboxError(400, 'bad_request', `request body is larger than ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json;charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'max-age=0, no-cache, no-store',
    ...headers,
  });
  res.end(text);
}

/** B2's error body: `{status, code, message}`. */
export function sendB2Error(res: ServerResponse, error: SandboxError, headers: Record<string, string> = {}): void {
  sendJson(res, error.status, { status: error.status, code: error.code, message: error.message }, headers);
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Percent-encode a file name the way B2 does in `X-Bz-File-Name` (keeps `/`). */
export function encodeB2Name(name: string): string {
  return encodeURIComponent(name).replace(/%2F/g, '/');
}
