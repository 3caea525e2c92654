/** Helpers for talking to a sandbox over HTTP in tests (raw B2 calls and the admin API). */
import type { RunningSandbox } from '../../src/sandbox/index.js';

export interface RawAuth {
  token: string;
  accountId: string;
  body: Record<string, any>;
}

export async function authorizeRaw(
  sandbox: RunningSandbox,
  keyId = sandbox.applicationKeyId,
  secret = sandbox.applicationKey,
): Promise<RawAuth> {
  const res = await fetch(`${sandbox.apiUrl}/b2api/v4/b2_authorize_account`, {
    headers: { Authorization: `Basic ${Buffer.from(`${keyId}:${secret}`).toString('base64')}` },
  });
  const body = (await res.json()) as Record<string, any>;
  if (res.status !== 200) throw new Error(`authorize failed: ${JSON.stringify(body)}`);
  return { token: body.authorizationToken, accountId: body.accountId, body };
}

/** POST a B2 JSON call; returns status and parsed body. */
export async function b2Post(
  sandbox: RunningSandbox,
  token: string,
  operation: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sandbox.apiUrl}/b2api/v4/${operation}`, {
    method: 'POST',
    headers: { Authorization: token, 'Content-Type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function admin(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${sandbox.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.adminToken}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`admin ${method} ${path} failed: ${JSON.stringify(json)}`);
  return json;
}

export async function bucketIdOf(sandbox: RunningSandbox, name: string): Promise<string> {
  const state = await admin(sandbox, 'GET', '/state');
  const bucket = state.buckets.find((b: { bucketName: string }) => b.bucketName === name);
  if (!bucket) throw new Error(`no bucket ${name}`);
  return bucket.bucketId;
}

export async function createKey(
  sandbox: RunningSandbox,
  body: Record<string, unknown>,
): Promise<{ applicationKeyId: string; applicationKey: string }> {
  return admin(sandbox, 'POST', '/keys', body);
}

export const FIXED_CLOCK = Date.parse('2026-04-15T10:30:00Z');
