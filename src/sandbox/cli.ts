/**
 * `b2-mcp sandbox`: start the sandbox, print one JSON line with its connection details on stdout,
 * run until SIGINT/SIGTERM, then close (saving `--state`) and return so the process exits 0.
 */
import { FaultSpecError, parseFaultSpec } from './faults.js';
import { startSandbox, type S3Upstream } from './index.js';
import { SEEDS, type SeedName } from './seed.js';

export class SandboxUsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxUsageError';
  }
}

export interface SandboxCommandOptions {
  port?: string;
  host?: string;
  seed?: string;
  state?: string;
  faults?: string;
  /** Base URL of a real S3-compatible server to hand out as `s3ApiUrl`. */
  s3Upstream?: string;
  s3UpstreamAccessKeyId?: string;
}

/** Where the upstream's credentials come from; the secret only from the environment (never argv). */
export const S3_UPSTREAM_ENV = { accessKeyId: 'B2_SANDBOX_S3_ACCESS_KEY_ID', secretAccessKey: 'B2_SANDBOX_S3_SECRET_ACCESS_KEY' } as const;

export interface SandboxCommandIo {
  stdout?: NodeJS.WritableStream;
  /** Resolves when the sandbox should stop; defaults to the first SIGINT or SIGTERM. */
  stopped?: Promise<unknown>;
  env?: NodeJS.ProcessEnv;
}

function upstreamFrom(options: SandboxCommandOptions, env: NodeJS.ProcessEnv): S3Upstream | undefined {
  if (options.s3Upstream === undefined) {
    if (options.s3UpstreamAccessKeyId !== undefined) throw new SandboxUsageError('--s3-upstream-access-key-id needs --s3-upstream');
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(options.s3Upstream);
  } catch {
    throw new SandboxUsageError(`--s3-upstream must be an http(s) URL, got "${options.s3Upstream}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SandboxUsageError(`--s3-upstream must be an http(s) URL, got "${options.s3Upstream}"`);
  if (url.username || url.password)
    throw new SandboxUsageError(
      `--s3-upstream must not carry credentials; set ${S3_UPSTREAM_ENV.accessKeyId} and ${S3_UPSTREAM_ENV.secretAccessKey}`,
    );
  if (url.pathname !== '/' || url.search || url.hash)
    throw new SandboxUsageError("--s3-upstream must be the server's root URL (path-style addressing), without a path or query");
  const accessKeyId = options.s3UpstreamAccessKeyId ?? env[S3_UPSTREAM_ENV.accessKeyId];
  const secretAccessKey = env[S3_UPSTREAM_ENV.secretAccessKey];
  if (!accessKeyId)
    throw new SandboxUsageError(
      `--s3-upstream needs the server's access key id: --s3-upstream-access-key-id or ${S3_UPSTREAM_ENV.accessKeyId}`,
    );
  // B2 authorizes with HTTP Basic "id:key", so the id cannot hold a colon.
  if (!/^[\x21-\x39\x3b-\x7e]{1,128}$/.test(accessKeyId))
    throw new SandboxUsageError('the S3 upstream access key id must be 1-128 printable ASCII characters without ":" or spaces');
  if (!secretAccessKey) throw new SandboxUsageError(`--s3-upstream needs the server's secret key in ${S3_UPSTREAM_ENV.secretAccessKey}`);
  return { url: url.origin, accessKeyId, secretAccessKey };
}

function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

export async function runSandboxCommand(options: SandboxCommandOptions, io: SandboxCommandIo = {}): Promise<void> {
  const port = Number(options.port ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65_533) {
    throw new SandboxUsageError(`--port must be an integer from 0 to 65533, got "${options.port}"`);
  }
  const seed = options.seed ?? 'demo';
  if (!(SEEDS as readonly string[]).includes(seed)) throw new SandboxUsageError(`--seed must be one of ${SEEDS.join(', ')}, got "${seed}"`);
  const host = options.host ?? '127.0.0.1';
  if (!host) throw new SandboxUsageError('--host must not be empty');

  if (options.faults) {
    try {
      parseFaultSpec(options.faults);
    } catch (error) {
      if (error instanceof FaultSpecError) throw new SandboxUsageError(error.message);
      throw error;
    }
  }

  const s3Upstream = upstreamFrom(options, io.env ?? process.env);

  const stopped = io.stopped ?? waitForSignal();
  const sandbox = await startSandbox({
    port,
    host,
    seed: seed as SeedName,
    ...(options.state ? { stateFile: options.state } : {}),
    ...(options.faults ? { faults: options.faults } : {}),
    ...(s3Upstream ? { s3Upstream } : {}),
  });
  const details = {
    apiUrl: sandbox.apiUrl,
    s3Url: sandbox.s3Url,
    accountId: sandbox.accountId,
    applicationKeyId: sandbox.applicationKeyId,
    applicationKey: sandbox.applicationKey,
    adminUrl: sandbox.adminUrl,
    // The key the server should use: it signs S3 requests to the upstream too.
    ...(s3Upstream ? { s3UpstreamKeyId: s3Upstream.accessKeyId } : {}),
    adminToken: sandbox.adminToken,
  };
  (io.stdout ?? process.stdout).write(`${JSON.stringify(details)}\n`);
  await stopped;
  await sandbox.close();
}
