import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { testClock, type TestClock } from './clock.js';
import { connectStdio, serverEnv, type ClientKind, type Connected, type ElicitAnswer } from './server-harness.js';
import { B2_CAPABILITIES } from '../../src/server/b2/capabilities.js';

export interface SandboxKey {
  applicationKeyId: string;
  applicationKey: string;
}

/** Every capability a tool of ours is mapped to: a key holding them all is shown the full profile. */
export const ALL_KEY_CAPABILITIES = [...B2_CAPABILITIES];

export async function adminCall<T = unknown>(sandbox: RunningSandbox, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${sandbox.adminUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${sandbox.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`admin ${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** An application key (S3 refuses master keys) with the given capabilities. */
export function createKey(sandbox: RunningSandbox, body: { capabilities: string[]; [field: string]: unknown }): Promise<SandboxKey> {
  return adminCall<SandboxKey>(sandbox, 'POST', '/keys', { keyName: 'test-key', ...body });
}

export interface MutationRecord {
  seq: number;
  api: string;
  operation: string;
  [field: string]: unknown;
}

export async function mutations(sandbox: RunningSandbox): Promise<MutationRecord[]> {
  const result = await adminCall<{ mutations: MutationRecord[] } | MutationRecord[]>(sandbox, 'GET', '/mutations');
  return Array.isArray(result) ? result : result.mutations;
}

/** The demo sandbox on the test clock (see clock.ts) unless `options.clock` says otherwise. */
export function startTestSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return startSandbox({ seed: 'demo', idSalt: 'tests', clock: testClock.now, ...options });
}

/**
 * The B2_* variables that point a server at the sandbox with the given key; with `partner`, the
 * sandbox's master key is the distinct Partner credential (the full surface).
 */
export function sandboxCredentials(sandbox: RunningSandbox, key: SandboxKey, options: { partner?: boolean } = {}): Record<string, string> {
  return {
    B2_API_URL: sandbox.apiUrl,
    B2_APPLICATION_KEY_ID: key.applicationKeyId,
    B2_APPLICATION_KEY: key.applicationKey,
    ...(options.partner && { B2_MASTER_KEY_ID: sandbox.applicationKeyId, B2_MASTER_KEY: sandbox.applicationKey }),
  };
}

/** The built server on stdio, pointed at the sandbox with the given key. */
export function connectToSandbox(
  sandbox: RunningSandbox,
  key: SandboxKey,
  options: { kind?: ClientKind; env?: Record<string, string>; elicit?: ElicitAnswer; clock?: TestClock } = {},
): Promise<Connected> {
  return connectStdio(
    options.kind ?? 'legacy',
    serverEnv({ ...sandboxCredentials(sandbox, key), ...options.env }),
    options.elicit,
    options.clock,
  );
}

export const textOf = (result: Record<string, unknown>): string => (result.content as Array<{ text: string }>)[0]?.text ?? '';
