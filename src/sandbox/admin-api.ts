/**
 * The admin API: what tests, benchmarks and the checker's probes use to set the sandbox up and read
 * what happened. Two ways in: {@link createAdminDispatcher} for a caller in the same process (the
 * checker holds the store by reference and needs no listener at all), and {@link createAdminHttpHandler}
 * for the `b2-mcp sandbox` listener, which answers only loopback callers that send the bearer token
 * printed at start-up (a server under test can find the port, but never holds the token).
 *
 *   GET    /health                      liveness
 *   GET    /mutations[?since=SEQ]       the mutation log (every applied state change, ids only; append-only)
 *   GET    /requests[?operation=OP][&since=SEQ]  every native/S3 request with status and fault
 *   GET    /digest                      a fingerprint of every bucket, version, upload, key, member, trial
 *   GET    /tokens?applicationKeyId=ID  every token issued to that key
 *   POST   /reset {seed?}               back to a freshly seeded state (account and master key kept)
 *   GET    /state                       counts, buckets, keys (no secrets), groups, clock
 *   POST   /keys {keyName, capabilities, bucketIds?|bucketNames?, namePrefix?,
 *                 validDurationInSeconds?, applicationKeyId?, applicationKey?}
 *                                       create a key (optionally with canary id/secret); returns the secret
 *   POST   /tokens/expire {applicationKeyId?}    make live tokens answer expired_auth_token
 *   POST   /clock {advanceMs}            move the sandbox clock forward
 *   GET    /faults | PUT /faults {spec} | DELETE /faults   inspect/replace/clear fault injection
 *   POST   /files {bucketName, fileName, text|base64, contentType?}  add a file without the native API
 *   POST   /bulk-versions {bucketName, count, namePrefix?, versionsPerName?, size?}
 *                                       append many synthetic versions quickly (benchmarks)
 * Admin calls are not mutations of the emulated account and are not in the mutation log. Sequence
 * numbers of both logs never restart, not even after /reset.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bytesBody, fillerBody, md5Hex, sha1Of } from './bodies.js';
import type { SandboxContext } from './context.js';
import { SandboxError, badRequest, notFound } from './errors.js';
import { describeThings, stateDigest } from './evidence.js';
import { FaultSpecError, parseFaultSpec } from './faults.js';
import { isLoopbackAddress } from '../contract/loopback-address.js';
import { JSON_BODY_LIMIT, readBody, sendB2Error, sendJson } from './http.js';
import { ALL_CAPABILITIES, type Capability } from './model.js';
import { SEEDS, applySeed, type SeedName } from './seed.js';

export type AdminMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One admin call: `path` with its query, a JSON object body for POST and PUT. Errors are {@link SandboxError}s. */
export type AdminDispatcher = (method: AdminMethod, path: string, body?: Record<string, unknown>) => Promise<unknown>;

function tokenMatches(header: string | undefined, token: string): boolean {
  const presented = Buffer.from(/^Bearer (.+)$/.exec(header ?? '')?.[1] ?? '');
  const expected = Buffer.from(token);
  return presented.length === expected.length && timingSafeEqual(presented, expected);
}

/** The HTTP face of the admin API: loopback callers with `Authorization: Bearer <token>` only. */
export function createAdminHttpHandler(
  dispatch: AdminDispatcher,
  token: string,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  return async function handleAdmin(req, res) {
    try {
      if (!isLoopbackAddress(req.socket.remoteAddress))
        throw new SandboxError(403, 'access_denied', 'the admin API answers loopback callers only');
      if (!tokenMatches(req.headers.authorization, token))
        throw new SandboxError(401, 'unauthorized', 'the admin API needs the bearer token the sandbox printed at start-up');
      const method = (req.method ?? 'GET') as AdminMethod;
      const body = method === 'POST' || method === 'PUT' ? await readJson(req) : undefined;
      sendJson(res, 200, await dispatch(method, req.url ?? '/', body));
    } catch (error) {
      if (error instanceof SandboxError) sendB2Error(res, error);
      else sendB2Error(res, new SandboxError(500, 'internal_error', (error as Error).message));
    }
  };
}

/** The admin operations over one sandbox, for a caller in the same process; results are plain JSON data. */
export function createAdminDispatcher(ctx: SandboxContext, defaultSeed: SeedName): AdminDispatcher {
  const store = ctx.store;

  return async function dispatchAdmin(method, path, body = {}) {
    const url = new URL(path, 'http://admin');
    const route = `${method} ${url.pathname.replace(/\/+$/, '') || '/'}`;
    try {
      // A copy: nothing the caller does with the answer can reach the store.
      return structuredClone(await dispatch(route, url, body));
    } catch (error) {
      if (error instanceof FaultSpecError) throw new SandboxError(400, 'bad_request', error.message);
      throw error;
    }
  };

  async function dispatch(route: string, url: URL, body: Record<string, unknown>): Promise<unknown> {
    switch (route) {
      case 'GET /':
      case 'GET /health':
        return { ok: true, accountId: store.accountId, apiUrl: ctx.urls.apiUrl, s3Url: ctx.urls.s3Url };
      case 'GET /mutations':
        return { mutations: store.mutations.list(Number(url.searchParams.get('since') ?? 0)) };
      case 'GET /digest':
        return { digest: stateDigest(store) };
      case 'POST /describe': {
        const names = body.names;
        if (!Array.isArray(names) || !names.every((name) => typeof name === 'string'))
          throw badRequest('names must be a list of digest names');
        return { things: await describeThings(store, names as string[]) };
      }
      case 'GET /tokens': {
        const keyId = url.searchParams.get('applicationKeyId');
        if (!keyId) throw badRequest('applicationKeyId is required');
        return { tokens: store.tokensOf(keyId) };
      }
      case 'GET /requests': {
        const operation = url.searchParams.get('operation');
        return {
          requests: ctx.requests.list({
            ...(operation ? { operation } : {}),
            sinceSeq: Number(url.searchParams.get('since') ?? 0),
          }),
        };
      }
      case 'POST /reset': {
        const seed = body.seed ?? defaultSeed;
        if (!(SEEDS as readonly unknown[]).includes(seed)) throw badRequest(`seed must be one of ${SEEDS.join(', ')}`);
        store.clear();
        ctx.requests.clear();
        await applySeed(store, seed as SeedName);
        return { reset: true, seed, stats: store.stats() };
      }
      case 'GET /state':
        return state();
      case 'POST /keys':
        return createKey(body);
      case 'POST /tokens/expire': {
        const keyId = optionalString(body, 'applicationKeyId');
        return { expired: store.expireTokens(keyId) };
      }
      case 'POST /clock': {
        const advanceMs = body.advanceMs;
        if (typeof advanceMs !== 'number' || !Number.isFinite(advanceMs) || advanceMs < 0)
          throw badRequest('advanceMs must be a non-negative number');
        store.advanceClock(advanceMs);
        return { now: store.now() };
      }
      case 'GET /faults':
        return { spec: ctx.faults.current(), injected: Object.fromEntries(ctx.faults.injected) };
      case 'PUT /faults': {
        const spec = body.spec;
        if (spec !== null && typeof spec !== 'string') throw badRequest('spec must be a fault spec string or null');
        ctx.faults.configure(spec ? parseFaultSpec(spec) : null);
        return { spec: ctx.faults.current() };
      }
      case 'DELETE /faults':
        ctx.faults.configure(null);
        return { spec: null };
      case 'POST /files':
        return addFile(body);
      case 'POST /bulk-versions':
        return bulkVersions(body);
      default:
        throw notFound(`unknown admin route: ${route}`);
    }
  }

  function state() {
    return {
      accountId: store.accountId,
      masterKeyId: store.masterKeyId,
      now: store.now(),
      stats: store.stats(),
      buckets: store.listBuckets().map((b) => ({
        bucketId: b.bucketId,
        bucketName: b.bucketName,
        bucketType: b.bucketType,
        reserved: b.reserved,
        fileLockEnabled: b.fileLockEnabled,
        fileVersions: b.versions.size,
        unfinishedLargeFiles: b.unfinished.size,
        notificationRules: b.notificationRules.length,
      })),
      keys: store.allKeys().map((k) => ({
        applicationKeyId: k.applicationKeyId,
        keyName: k.keyName,
        isMaster: k.isMaster,
        capabilities: k.capabilities,
        bucketIds: k.bucketIds,
        namePrefix: k.namePrefix,
        expirationTimestamp: k.expirationTimestamp,
      })),
      groups: store.listGroups().map((g) => ({ groupId: g.groupId, groupName: g.groupName, members: g.members })),
    };
  }

  function createKey(body: Record<string, unknown>) {
    const capabilities = body.capabilities;
    if (!Array.isArray(capabilities) || capabilities.some((c) => !(ALL_CAPABILITIES as readonly unknown[]).includes(c))) {
      throw badRequest(`capabilities must be an array of: ${ALL_CAPABILITIES.join(', ')}`);
    }
    let bucketIds = body.bucketIds as string[] | undefined;
    if (Array.isArray(body.bucketNames)) {
      bucketIds = (body.bucketNames as unknown[]).map((name) => {
        const bucket = typeof name === 'string' ? store.findBucketByName(name) : undefined;
        if (!bucket) throw badRequest(`no bucket named ${String(name)}`);
        return bucket.bucketId;
      });
    }
    const keyId = optionalString(body, 'applicationKeyId');
    const secret = optionalString(body, 'applicationKey');
    const namePrefix = optionalString(body, 'namePrefix');
    const key = store.createKey({
      keyName: optionalString(body, 'keyName') ?? 'admin-key',
      capabilities: capabilities as Capability[],
      bucketIds: bucketIds ?? null,
      namePrefix: namePrefix ?? null,
      validDurationInSeconds: typeof body.validDurationInSeconds === 'number' ? body.validDurationInSeconds : null,
      ...(keyId ? { applicationKeyId: keyId } : {}),
      ...(secret ? { applicationKey: secret } : {}),
    });
    return {
      applicationKeyId: key.applicationKeyId,
      applicationKey: key.applicationKey,
      keyName: key.keyName,
      capabilities: key.capabilities,
      bucketIds: key.bucketIds,
      namePrefix: key.namePrefix,
      expirationTimestamp: key.expirationTimestamp,
    };
  }

  function bucketNamed(body: Record<string, unknown>) {
    const name = optionalString(body, 'bucketName');
    const bucket = name ? store.findBucketByName(name) : undefined;
    if (!bucket) throw badRequest(`bucketName must name an existing bucket`);
    return bucket;
  }

  async function addFile(body: Record<string, unknown>) {
    const bucket = bucketNamed(body);
    const fileName = optionalString(body, 'fileName');
    if (!fileName) throw badRequest('fileName is required');
    const base64 = optionalString(body, 'base64');
    const data = base64 !== undefined ? Buffer.from(base64, 'base64') : Buffer.from(optionalString(body, 'text') ?? '', 'utf8');
    const stored = bytesBody(data);
    const file = store.uploadFile(bucket.bucketId, {
      fileName,
      contentType: optionalString(body, 'contentType') ?? 'application/octet-stream',
      body: stored,
      contentSha1: await sha1Of(stored),
      contentMd5: md5Hex(data),
    });
    return { fileId: file.fileId, fileName: file.fileName, bucketId: file.bucketId, contentLength: file.contentLength };
  }

  async function bulkVersions(body: Record<string, unknown>) {
    const bucket = bucketNamed(body);
    const count = body.count;
    const perName = body.versionsPerName ?? 1;
    const size = body.size ?? 1024;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > 2_000_000) {
      throw badRequest('count must be an integer from 1 to 2000000');
    }
    if (typeof perName !== 'number' || !Number.isInteger(perName) || perName < 1)
      throw badRequest('versionsPerName must be a positive integer');
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 0) throw badRequest('size must be a non-negative integer');
    const prefix = optionalString(body, 'namePrefix') ?? 'bulk/';
    const stored = fillerBody(size);
    const sha1 = await sha1Of(stored);
    const started = performance.now();
    const width = String(Math.ceil(count / perName)).length;
    for (let i = 0; i < count; i++) {
      store.uploadFile(bucket.bucketId, {
        fileName: `${prefix}${String(Math.floor(i / perName)).padStart(width, '0')}`,
        contentType: 'application/octet-stream',
        body: stored,
        contentSha1: sha1,
      });
    }
    return { inserted: count, bucketId: bucket.bucketId, fileVersions: bucket.versions.size, ms: Math.round(performance.now() - started) };
  }
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const raw = await readBody(req, JSON_BODY_LIMIT);
  if (raw.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('request body is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badRequest(`${name} must be a string`);
  return value;
}
