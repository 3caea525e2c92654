/**
 * The local B2 sandbox: a B2 Native API emulator (and an S3-compatible API) over
 * one in-memory store, plus an admin API for tests and probes.
 *
 * Three HTTP listeners:
 *   apiUrl   — native API, `/b2api/v4/...` and `/file/<bucket>/<name>` (host/port as given)
 *   s3Url    — S3 API, path-style `/<bucket>/<key>` at the root of its own port, so an AWS SDK
 *              client with `forcePathStyle: true` and `endpoint: s3Url` works unchanged
 *   adminUrl — admin API, always bound to 127.0.0.1, answering loopback callers that send the
 *              bearer token `adminToken` (left out with `adminListener: false`: the caller then
 *              uses `admin`, the same operations in-process, and nothing else can reach them)
 * With a fixed `port` P the S3 and admin listeners default to P+1 and P+2; with port 0 (the
 * default) each gets a free port. With `s3Upstream` there is no S3 listener: `s3Url` (and so the
 * authorize answer's `s3ApiUrl`) is that server, and its access key is a sandbox application key.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdminDispatcher, createAdminHttpHandler, type AdminDispatcher } from './admin-api.js';
import { RequestLog, type SandboxContext, type SandboxUrls } from './context.js';
import { FaultInjector, parseFaultSpec } from './faults.js';
import { createNativeFrontEnd } from './native-api.js';
import { loadState, saveState } from './persistence.js';
import { createS3FrontEnd } from './s3/index.js';
import { ALL_CAPABILITIES } from './model.js';
import { applySeed, type SeedName } from './seed.js';
import { SandboxStore } from './store.js';

export interface SandboxOptions {
  /** Native API port; 0 (default) picks a free one. */
  port?: number;
  /** Defaults to `port + 1` when `port` is fixed, else a free port. */
  s3Port?: number;
  /** Defaults to `port + 2` when `port` is fixed, else a free port. */
  adminPort?: number;
  /** Listen address of the native and S3 listeners (default 127.0.0.1). */
  host?: string;
  /** Initial data for a fresh state (ignored when `stateFile` exists). Default `demo`. */
  seed?: SeedName;
  /** Load state from this JSON file if it exists; save it there on close. */
  stateFile?: string;
  /** Fault injection spec; see `faults.ts`. */
  faults?: string;
  /** Milliseconds since the epoch; defaults to Date.now. */
  clock?: () => number;
  /** Fix every derived id and secret (random by default). */
  idSalt?: string;
  /** A real S3-compatible server to hand out as `s3ApiUrl` instead of the sandbox's own S3 API. */
  s3Upstream?: S3Upstream;
  /** Serve the admin API over HTTP (default true); without it only `admin` reaches it. */
  adminListener?: boolean;
}

export interface S3Upstream {
  /** Its base URL, path-style at the root (`http://127.0.0.1:7480`). */
  url: string;
  /** Its credentials; the sandbox accepts them as an application key, so one key serves both APIs. */
  accessKeyId: string;
  secretAccessKey: string;
}

export interface RunningSandbox {
  apiUrl: string;
  s3Url: string;
  /** Null without the admin listener. */
  adminUrl: string | null;
  /** What the admin listener wants as `Authorization: Bearer <adminToken>`. */
  adminToken: string;
  /** The admin operations in-process, with no listener in between. */
  admin: AdminDispatcher;
  accountId: string;
  /** The account's master key. */
  applicationKeyId: string;
  applicationKey: string;
  store: SandboxStore;
  context: SandboxContext;
  /** Stop listening; saves state first when `stateFile` is set. */
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const host = options.host ?? '127.0.0.1';
  const faults = new FaultInjector(options.faults ? parseFaultSpec(options.faults) : null);
  const storeOptions = { ...(options.clock ? { clock: options.clock } : {}), ...(options.idSalt ? { idSalt: options.idSalt } : {}) };
  const seed = options.seed ?? 'demo';
  let store: SandboxStore;
  if (options.stateFile && existsSync(options.stateFile)) {
    store = await loadState(options.stateFile, storeOptions);
  } else {
    store = new SandboxStore(storeOptions);
    await applySeed(store, seed);
  }

  const urls: SandboxUrls = { apiUrl: '', s3Url: '', adminUrl: '' };
  const context: SandboxContext = { store, faults, requests: new RequestLog(), urls };
  const servers: Server[] = [];
  const serve = (handler: Handler) => {
    const server = createServer((req, res) => void handler(req, res));
    server.keepAliveTimeout = 5_000;
    servers.push(server);
    return server;
  };
  if (options.s3Upstream) adoptUpstreamKey(store, options.s3Upstream);
  const apiServer = serve(createNativeFrontEnd(context));
  const s3Server = options.s3Upstream ? undefined : serve(createS3FrontEnd(context));
  const admin = createAdminDispatcher(context, seed);
  const adminToken = randomBytes(24).toString('base64url');
  const adminServer = options.adminListener === false ? undefined : serve(createAdminHttpHandler(admin, adminToken));

  const close = async () => {
    await Promise.all(
      servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
    if (options.stateFile) await saveState(store, options.stateFile);
  };

  try {
    const port = options.port ?? 0;
    const apiPort = await listen(apiServer, port, host);
    const s3Port = s3Server ? await listen(s3Server, options.s3Port ?? (port ? port + 1 : 0), host) : undefined;
    urls.apiUrl = `http://${urlHost(host)}:${apiPort}`;
    urls.s3Url = options.s3Upstream ? options.s3Upstream.url.replace(/\/+$/, '') : `http://${urlHost(host)}:${s3Port}`;
    if (adminServer)
      urls.adminUrl = `http://127.0.0.1:${await listen(adminServer, options.adminPort ?? (port ? port + 2 : 0), '127.0.0.1')}`;
  } catch (error) {
    for (const server of servers) if (server.listening) server.close();
    throw error;
  }

  const master = store.masterKey;
  return {
    apiUrl: urls.apiUrl,
    s3Url: urls.s3Url,
    adminUrl: urls.adminUrl || null,
    adminToken,
    admin,
    accountId: store.accountId,
    applicationKeyId: master.applicationKeyId,
    applicationKey: master.applicationKey,
    store,
    context,
    close,
  };
}

/** The upstream's access key as an application key with every capability (kept from a state file). */
function adoptUpstreamKey(store: SandboxStore, upstream: S3Upstream): void {
  const existing = store.getKey(upstream.accessKeyId);
  if (!existing) {
    store.createKey({
      keyName: 's3-upstream',
      capabilities: [...ALL_CAPABILITIES],
      applicationKeyId: upstream.accessKeyId,
      applicationKey: upstream.secretAccessKey,
    });
  } else if (existing.isMaster || existing.applicationKey !== upstream.secretAccessKey) {
    throw new Error(`the S3 upstream's access key id ${upstream.accessKeyId} is already a different sandbox key`);
  }
}

export { SandboxStore } from './store.js';
export type { SandboxContext } from './context.js';
export type { AdminDispatcher } from './admin-api.js';
export type { SeedName } from './seed.js';
