import { randomBytes, randomInt } from 'node:crypto';
import type { AdminDispatcher, AdminMethod } from '../../sandbox/admin-api.js';
import type { StateDigest, ThingFacts } from '../../sandbox/evidence.js';
import { ALL_CAPABILITIES } from '../../sandbox/model.js';
import { ConformError } from '../errors.js';
import type { Canary } from './secrets.js';

/** A key as the sandbox admin API returns it. */
export interface SandboxKey {
  applicationKeyId: string;
  applicationKey: string;
}

/**
 * The B2 stand-in the probes run against: started in-process for this run, or one a
 * `check --sandbox-env` process keeps running for servers started by hand. The in-process one has
 * no admin listener at all: the probes call its admin operations directly and read its log and
 * state by reference, so nothing the server under test can reach changes or erases the evidence.
 * The external one answers only the bearer token that `--sandbox-env` wrote for the checker.
 */
export interface ProbeSandbox {
  kind: 'in-process' | 'external';
  apiUrl: string;
  accountId: string;
  /** The key the server under test gets; its secret is a canary. */
  serverKey: SandboxKey;
  /** Only for the full-surface profile: the account's master key, which enables the Partner tools. */
  partnerKey?: SandboxKey;
  /** Secret values that must never leave the server. */
  canaries: Canary[];
  /** Only for `check --sandbox-env`: the admin listener a later `check` attaches to, and its token. */
  listener?: { url: string; token: string };
  admin<T>(method: AdminMethod, path: string, body?: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
}

/** The variables through which `--sandbox-env` tells a later `check` where its sandbox's admin API is, and its token. */
export const SANDBOX_ADMIN_VARIABLE = 'B2_MCP_CONFORM_SANDBOX';
export const SANDBOX_TOKEN_VARIABLE = 'B2_MCP_CONFORM_SANDBOX_TOKEN';

const KEY_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * A fresh, high-entropy application key secret shaped like B2's (31 characters). It always holds
 * a `+` and a `/`, so its URL-encoded form differs from the raw one and both can be searched for.
 */
export function canarySecret(): string {
  const bytes = randomBytes(27);
  const chars = [...bytes].map((byte) => KEY_ALPHABET[byte % KEY_ALPHABET.length]!);
  chars[randomInt(0, 13)] = '+';
  chars[randomInt(14, 27)] = '/';
  return `K005${chars.join('')}`;
}

/** The in-process admin operations, with errors as one-line messages. */
function directAdmin(dispatch: AdminDispatcher): ProbeSandbox['admin'] {
  return async <T>(method: AdminMethod, path: string, body?: Record<string, unknown>): Promise<T> => {
    try {
      return (await dispatch(method, path, body)) as T;
    } catch (error) {
      throw new Error(`sandbox admin ${method} ${path}: ${(error as Error).message}`);
    }
  };
}

function adminClient(adminUrl: string, token: string): ProbeSandbox['admin'] {
  return async <T>(method: AdminMethod, path: string, body?: Record<string, unknown>): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(`${adminUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? null : JSON.stringify(body),
      });
    } catch (error) {
      throw new ConformError('connect', `the probe sandbox's admin API at ${adminUrl} is not reachable (${(error as Error).message})`);
    }
    const text = await response.text();
    if (!response.ok) throw new Error(`sandbox admin ${method} ${path} answered ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  };
}

/**
 * The capabilities of the key the server gets: the profile's list, or every capability for the
 * full-surface profile (capabilities null), which also gets the master key as its Partner credential.
 */
function keyCapabilities(capabilities: readonly string[] | null): string[] {
  return capabilities ? [...capabilities] : [...ALL_CAPABILITIES];
}

/**
 * Start a sandbox in this process, seeded with the demo data, and mint the server's canary key.
 * Only with `listener` (for `check --sandbox-env`) does its admin API listen, behind a token.
 */
export async function startProbeSandbox(
  capabilities: readonly string[] | null,
  options: { listener?: boolean } = {},
): Promise<ProbeSandbox> {
  const { startSandbox } = await import('../../sandbox/index.js');
  const running = await startSandbox({ seed: 'demo', adminListener: options.listener === true });
  try {
    const admin = directAdmin(running.admin);
    const serverKey = await admin<SandboxKey>('POST', '/keys', {
      keyName: 'workstation',
      capabilities: keyCapabilities(capabilities),
      applicationKey: canarySecret(),
    });
    const partnerKey =
      capabilities === null ? { applicationKeyId: running.applicationKeyId, applicationKey: running.applicationKey } : undefined;
    return {
      kind: 'in-process',
      apiUrl: running.apiUrl,
      accountId: running.accountId,
      serverKey,
      ...(partnerKey ? { partnerKey } : {}),
      canaries: canariesOf(serverKey, partnerKey),
      ...(running.adminUrl ? { listener: { url: running.adminUrl, token: running.adminToken } } : {}),
      admin,
      close: () => running.close(),
    };
  } catch (error) {
    await running.close();
    throw error;
  }
}

/**
 * Attach to the sandbox a `check --sandbox-env` process runs, from the variables it printed for the
 * server under test and the ones it wrote to the checker's file.
 */
export async function attachProbeSandbox(env: NodeJS.ProcessEnv): Promise<ProbeSandbox> {
  const adminUrl = env[SANDBOX_ADMIN_VARIABLE]!;
  const missing = ['B2_API_URL', 'B2_APPLICATION_KEY_ID', 'B2_APPLICATION_KEY', SANDBOX_TOKEN_VARIABLE].filter((name) => !env[name]);
  if (missing.length > 0)
    throw new ConformError(
      'usage',
      `${SANDBOX_ADMIN_VARIABLE} is set but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not; load every line --sandbox-env printed and the --checker-env file`,
    );
  const admin = adminClient(adminUrl, env[SANDBOX_TOKEN_VARIABLE]!);
  const health = await admin<{ accountId: string }>('GET', '/health');
  const serverKey = { applicationKeyId: env.B2_APPLICATION_KEY_ID!, applicationKey: env.B2_APPLICATION_KEY! };
  const partnerKey =
    env.B2_MASTER_KEY_ID && env.B2_MASTER_KEY ? { applicationKeyId: env.B2_MASTER_KEY_ID, applicationKey: env.B2_MASTER_KEY } : undefined;
  return {
    kind: 'external',
    apiUrl: env.B2_API_URL!,
    accountId: health.accountId,
    serverKey,
    ...(partnerKey ? { partnerKey } : {}),
    canaries: canariesOf(serverKey, partnerKey),
    admin,
    close: async () => {},
  };
}

function canariesOf(serverKey: SandboxKey, partnerKey: SandboxKey | undefined): Canary[] {
  return [
    { name: 'application key', value: serverKey.applicationKey, keyId: serverKey.applicationKeyId },
    ...(partnerKey ? [{ name: 'master key', value: partnerKey.applicationKey, keyId: partnerKey.applicationKeyId }] : []),
  ];
}

/** What the server under test is started with to use the sandbox (the contract's variables only). */
export function sandboxServerEnv(sandbox: ProbeSandbox): Record<string, string> {
  return {
    B2_API_URL: sandbox.apiUrl,
    B2_APPLICATION_KEY_ID: sandbox.serverKey.applicationKeyId,
    B2_APPLICATION_KEY: sandbox.serverKey.applicationKey,
    ...(sandbox.partnerKey
      ? { B2_MASTER_KEY_ID: sandbox.partnerKey.applicationKeyId, B2_MASTER_KEY: sandbox.partnerKey.applicationKey }
      : {}),
  };
}

/** Highest sequence number in the mutation log so far; mutations after it belong to what runs next. */
export async function mutationMark(sandbox: ProbeSandbox, since = 0): Promise<number> {
  const { mutations } = await sandbox.admin<{ mutations: { seq: number }[] }>('GET', `/mutations?since=${since}`);
  return mutations.reduce((max, record) => Math.max(max, record.seq), since);
}

export interface MutationRecord {
  seq: number;
  operation: string;
  bucketName?: string;
  fileName?: string;
  uploadId?: string;
  applicationKeyId?: string;
  memberAccountId?: string;
}

export async function mutationsSince(sandbox: ProbeSandbox, mark: number): Promise<MutationRecord[]> {
  return (await sandbox.admin<{ mutations: MutationRecord[] }>('GET', `/mutations?since=${mark}`)).mutations;
}

/** The sandbox's own account of its state, to judge by besides the mutation log. */
export async function stateDigestOf(sandbox: ProbeSandbox): Promise<StateDigest> {
  return (await sandbox.admin<{ digest: StateDigest }>('GET', '/digest')).digest;
}

/** The sandbox's facts (bucket, key, size, content SHA-1, metadata, parts, version count) of the named versions and uploads. */
export async function describedThings(sandbox: ProbeSandbox, names: readonly string[]): Promise<Record<string, ThingFacts>> {
  if (names.length === 0) return {};
  return (await sandbox.admin<{ things: Record<string, ThingFacts> }>('POST', '/describe', { names: [...names] })).things;
}

/** Every token the sandbox issued so far to the keys the server was given (each one a canary). */
export async function issuedTokens(sandbox: ProbeSandbox): Promise<string[]> {
  const keys = [sandbox.serverKey, ...(sandbox.partnerKey ? [sandbox.partnerKey] : [])];
  const lists = await Promise.all(
    keys.map((key) => sandbox.admin<{ tokens: string[] }>('GET', `/tokens?applicationKeyId=${encodeURIComponent(key.applicationKeyId)}`)),
  );
  return lists.flatMap((list) => list.tokens);
}

/** Highest sequence number in the request log: requests after it reached the sandbox later. */
export async function requestMark(sandbox: ProbeSandbox, since = 0): Promise<{ mark: number; count: number }> {
  const { requests } = await sandbox.admin<{ requests: { seq: number }[] }>('GET', `/requests?since=${since}`);
  return { mark: requests.reduce((max, record) => Math.max(max, record.seq), since), count: requests.length };
}

/**
 * What `check --sandbox-env` prints for the server started by hand: `NAME=value` lines (the values
 * hold no shell metacharacters). Nothing in it reaches the admin API.
 */
export function sandboxEnvLines(sandbox: ProbeSandbox): string {
  const env = { ...sandboxServerEnv(sandbox), B2_DESTRUCTIVE_POLICY: 'confirm', B2_SECRET_SINK: 'off' };
  return Object.entries(env)
    .map(([name, value]) => `${name}=${value}\n`)
    .join('');
}

/** What `check --sandbox-env` writes for the checker alone: where the admin API is and its token. */
export function checkerEnvLines(listener: { url: string; token: string }): string {
  return `${SANDBOX_ADMIN_VARIABLE}=${listener.url}\n${SANDBOX_TOKEN_VARIABLE}=${listener.token}\n`;
}
