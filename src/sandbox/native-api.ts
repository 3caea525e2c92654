/**
 * The B2 Native API front end (`/b2api/v4/...`, `/file/<bucket>/<name>`).
 *
 * Each request: route → fault decision → authenticate → parse (B2's 400 on bad input) → check
 * access → call the store → record the mutation → respond. Faults with phase `after` let the
 * operation apply and then lose the response.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { requireAccess, hasCapability, keyAllowsBucket } from './access.js';
import { bytesBody, md5Hex, openBody } from './bodies.js';
import type { SandboxContext } from './context.js';
import { SandboxError, badRequest, notFound, unauthorized } from './errors.js';
import { performFault, type RenderError } from './fault-responses.js';
import { JSON_BODY_LIMIT, encodeB2Name, readBody, sendB2Error, sendJson, sleep } from './http.js';
import type { Capability, FileRetention, FileVersion, KeyRecord, MutationTarget } from './model.js';
import { b2StatsTimestamp, bucketJson, fileJson, folderJson, groupMemberJson, keyJson, partJson, s3EndpointFor } from './native-json.js';
import { NATIVE_REQUESTS, parseNativeRequest, type NativeOperation, type NativeRequest } from './native-requests.js';
import { ABSOLUTE_MINIMUM_PART_SIZE, RECOMMENDED_PART_SIZE, type ListPage } from './store.js';

const API_VERSION = 'v4';
const API_PREFIX = `/b2api/${API_VERSION}/`;
/** Native uploads are buffered in memory; the S3 front end streams big bodies to disk instead. */
const NATIVE_UPLOAD_LIMIT = 100 * 1024 * 1024;

const renderJsonError: RenderError = (status, code, message) => ({
  contentType: 'application/json;charset=utf-8',
  body: JSON.stringify({ status, code, message }),
});

interface Call<Op extends NativeOperation> {
  key: KeyRecord;
  input: NativeRequest<Op>;
  mutated(target: MutationTarget): void;
}

type JsonOperation = Exclude<NativeOperation, 'b2_download_file_by_id'>;
type Handlers = { [Op in JsonOperation]: (call: Call<Op>) => unknown };

/** What a route produces before it is written: JSON, or a download stream. */
type Outcome = { kind: 'json'; body: unknown } | { kind: 'download'; file: FileVersion; key: KeyRecord | null; head: boolean };

export function createNativeFrontEnd(ctx: SandboxContext): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const store = ctx.store;
  const handlers = jsonHandlers(ctx);

  return async function handleNative(req, res) {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const method = req.method ?? 'GET';
    const operation = operationFor(url.pathname);
    let status = 0;
    let faultKind: string | undefined;
    res.on('finish', () => (status = res.statusCode));
    res.on('close', () =>
      ctx.requests.record({
        time: store.now(),
        api: 'native',
        operation,
        method,
        status: status || 0,
        ...(faultKind ? { fault: faultKind as never } : {}),
      }),
    );
    try {
      if (ctx.faults.latencyMs > 0) await sleep(ctx.faults.latencyMs);
      const decision = ctx.faults.decide(operation);
      if (decision) faultKind = decision.kind;
      if (decision && decision.phase === 'before') {
        await performFault(decision, req, res, renderJsonError);
        return;
      }
      const mutated = (target: MutationTarget) =>
        store.mutations.record({ time: store.now(), api: 'native', operation, method, endpoint: url.pathname, ...target });
      const outcome = await route(url, req, operation, mutated);
      if (decision) {
        await performFault(decision, req, res, renderJsonError);
        return;
      }
      if (outcome.kind === 'json') sendJson(res, 200, outcome.body);
      else sendDownload(req, res, outcome);
    } catch (error) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof SandboxError) sendB2Error(res, error);
      else sendB2Error(res, new SandboxError(500, 'internal_error', `internal sandbox error: ${(error as Error).message}`));
    }
  };

  async function route(url: URL, req: IncomingMessage, operation: string, mutated: (target: MutationTarget) => void): Promise<Outcome> {
    const method = req.method ?? 'GET';
    if (operation === 'b2_download_file_by_name') {
      if (method !== 'GET' && method !== 'HEAD') throw new SandboxError(405, 'method_not_allowed', 'downloads use GET or HEAD');
      return downloadByName(url, req);
    }
    if (operation === 'b2_authorize_account') return { kind: 'json', body: authorize(req) };
    if (method !== 'GET' && method !== 'POST' && !(method === 'HEAD' && operation === 'b2_download_file_by_id')) {
      throw new SandboxError(405, 'method_not_allowed', `${method} is not supported; use GET or POST`);
    }
    if (url.pathname.startsWith('/b2api/') && !url.pathname.startsWith(API_PREFIX)) {
      throw notFound(`this sandbox serves the B2 Native API ${API_VERSION} only (${API_PREFIX}...)`);
    }
    if (operation === 'b2_upload_file') return { kind: 'json', body: await uploadFile(url, req, mutated) };
    if (operation === 'b2_upload_part') return { kind: 'json', body: await uploadPart(url, req, mutated) };
    if (!(operation in NATIVE_REQUESTS)) throw notFound(`unknown API operation: ${url.pathname}`);
    const op = operation as NativeOperation;
    const input = await readInput(op, url, req);
    const key = store.resolveToken(authorizationOf(req, url));
    if (op === 'b2_download_file_by_id') {
      const file = store.findFile((input as NativeRequest<'b2_download_file_by_id'>).fileId);
      if (file?.action !== 'upload') throw notFound(`file not found: ${(input as { fileId: string }).fileId}`);
      requireAccess(key, { capability: 'readFiles', bucket: store.requireBucket(file.bucketId), fileName: file.fileName });
      return { kind: 'download', file, key, head: method === 'HEAD' };
    }
    const handler = handlers[op as JsonOperation] as (call: Call<JsonOperation>) => unknown;
    return { kind: 'json', body: handler({ key, input: input as never, mutated }) };
  }

  async function readInput(op: NativeOperation, url: URL, req: IncomingMessage) {
    if (req.method === 'GET' || req.method === 'HEAD') return parseNativeRequest(op, { query: url.searchParams });
    const raw = await readBody(req, JSON_BODY_LIMIT);
    let json: unknown = {};
    if (raw.length > 0) {
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        throw badRequest('request body is not valid JSON');
      }
    }
    return parseNativeRequest(op, { json });
  }

  function authorize(req: IncomingMessage) {
    const header = req.headers.authorization ?? '';
    const match = /^Basic\s+(.+)$/i.exec(header);
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0) throw unauthorized('b2_authorize_account needs HTTP Basic credentials (applicationKeyId:applicationKey)');
    const key = store.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1));
    const token = store.issueToken(key);
    const buckets = key.bucketIds?.map((id) => ({ id, name: store.findBucketById(id)?.bucketName ?? null })) ?? null;
    return {
      accountId: store.accountId,
      apiInfo: {
        ...(key.isMaster ? { groupsApi: { capabilities: ['all'], groupsApiUrl: ctx.urls.apiUrl, infoType: 'groupsApi' } } : {}),
        storageApi: {
          absoluteMinimumPartSize: ABSOLUTE_MINIMUM_PART_SIZE,
          allowed: { buckets, capabilities: key.capabilities, namePrefix: key.namePrefix },
          apiUrl: ctx.urls.apiUrl,
          downloadUrl: ctx.urls.apiUrl,
          infoType: 'storageApi',
          recommendedPartSize: RECOMMENDED_PART_SIZE,
          s3ApiUrl: ctx.urls.s3Url,
        },
      },
      applicationKeyExpirationTimestamp: key.expirationTimestamp,
      authorizationToken: token.token,
    };
  }

  function downloadByName(url: URL, req: IncomingMessage): Outcome {
    const rest = url.pathname.slice('/file/'.length);
    const slash = rest.indexOf('/');
    if (slash <= 0 || slash === rest.length - 1) throw badRequest('download path must be /file/<bucketName>/<fileName>');
    const bucketName = decodeURIComponent(rest.slice(0, slash));
    const fileName = decodeURIComponent(rest.slice(slash + 1));
    const bucket = store.findBucketByName(bucketName);
    if (!bucket) throw notFound(`Bucket ${bucketName} does not exist`);
    let key: KeyRecord | null = null;
    if (bucket.bucketType !== 'allPublic' || authorizationOf(req, url)) {
      key = store.resolveToken(authorizationOf(req, url));
      requireAccess(key, { capability: 'readFiles', bucket, fileName });
    }
    const file = store.latestVisible(bucket.bucketId, fileName);
    if (!file) throw notFound('File with such name does not exist.');
    return { kind: 'download', file, key, head: req.method === 'HEAD' };
  }

  function sendDownload(req: IncomingMessage, res: ServerResponse, outcome: Extract<Outcome, { kind: 'download' }>): void {
    const { file, key } = outcome;
    const size = file.contentLength;
    const range = parseRange(req.headers.range, size);
    const headers: Record<string, string> = {
      'Content-Type': file.contentType,
      'Accept-Ranges': 'bytes',
      'Cache-Control': 'max-age=0, no-cache, no-store',
      'X-Bz-File-Id': file.fileId,
      'X-Bz-File-Name': encodeB2Name(file.fileName),
      'X-Bz-Content-Sha1': file.contentSha1,
      'X-Bz-Upload-Timestamp': String(file.uploadTimestamp),
    };
    for (const [name, value] of Object.entries(file.fileInfo)) {
      if (name === 'b2-content-disposition') headers['Content-Disposition'] = value;
      else headers[`X-Bz-Info-${name}`] = encodeURIComponent(value);
    }
    if (key && store.requireBucket(file.bucketId).fileLockEnabled) {
      if (hasCapability(key, 'readFileLegalHolds')) headers['X-Bz-File-Legal-Hold'] = file.legalHold ?? 'off';
      if (hasCapability(key, 'readFileRetentions') && file.retention) {
        headers['X-Bz-File-Retention-Mode'] = file.retention.mode;
        headers['X-Bz-File-Retention-Retain-Until-Timestamp'] = String(file.retention.retainUntilTimestamp);
      }
    }
    if (range) {
      headers['Content-Range'] = `bytes ${range.first}-${range.last}/${size}`;
      headers['Content-Length'] = String(range.last - range.first + 1);
    } else headers['Content-Length'] = String(size);
    res.writeHead(range ? 206 : 200, headers);
    if (outcome.head || !file.body) {
      res.end();
      return;
    }
    const stream = openBody(file.body, range ?? undefined);
    stream.on('error', () => res.destroy());
    stream.pipe(res);
  }

  async function uploadFile(url: URL, req: IncomingMessage, mutated: (t: MutationTarget) => void) {
    const bucketId = decodeURIComponent(url.pathname.split('/')[4] ?? '');
    const { grant, key } = store.resolveUploadGrant(req.headers.authorization);
    if (grant.bucketId !== bucketId || grant.largeFileId) throw unauthorized('upload authorization token is for another upload URL');
    const bucket = store.requireBucket(bucketId);
    const fileName = decodeHeaderName(req.headers['x-bz-file-name']);
    requireAccess(key, { capability: 'writeFiles', bucket, fileName });
    const lock = lockHeaders(req, key);
    const data = await readUploadBody(req);
    const file = store.uploadFile(bucketId, {
      fileName,
      contentType: contentTypeFor(req.headers['content-type'], fileName),
      fileInfo: infoHeaders(req),
      body: bytesBody(data),
      contentSha1: checkedSha1(req.headers['x-bz-content-sha1'], data),
      contentMd5: md5Hex(data),
      ...(lock.retention ? { retention: lock.retention } : {}),
      legalHold: lock.legalHold,
      ...(req.headers['x-bz-server-side-encryption'] === 'AES256'
        ? { serverSideEncryption: { mode: 'SSE-B2' as const, algorithm: 'AES256' as const } }
        : {}),
    });
    mutated({ callerKeyId: key.applicationKeyId, bucketId, bucketName: bucket.bucketName, fileId: file.fileId, fileName });
    return fileJson(store.accountId, file, key);
  }

  async function uploadPart(url: URL, req: IncomingMessage, mutated: (t: MutationTarget) => void) {
    const fileId = decodeURIComponent(url.pathname.split('/')[4] ?? '');
    const { grant, key } = store.resolveUploadGrant(req.headers.authorization);
    if (grant.largeFileId !== fileId) throw unauthorized('upload authorization token is for another large file');
    const file = store.requireUnfinished(fileId);
    requireAccess(key, { capability: 'writeFiles', bucket: store.requireBucket(file.bucketId), fileName: file.fileName });
    const partNumber = Number(req.headers['x-bz-part-number']);
    const data = await readUploadBody(req);
    const part = store.uploadPart(fileId, {
      partNumber,
      body: bytesBody(data),
      contentSha1: checkedSha1(req.headers['x-bz-content-sha1'], data),
      contentMd5: md5Hex(data),
    });
    mutated({ callerKeyId: key.applicationKeyId, bucketId: file.bucketId, fileId, fileName: file.fileName });
    return partJson(fileId, part);
  }
}

function operationFor(pathname: string): string {
  if (pathname.startsWith('/file/')) return 'b2_download_file_by_name';
  if (!pathname.startsWith(API_PREFIX)) return pathname.startsWith('/b2api/') ? (pathname.split('/')[3] ?? 'unknown') : 'unknown';
  const name = pathname.slice(API_PREFIX.length).split('/')[0]!;
  return name;
}

function authorizationOf(req: IncomingMessage, url: URL): string | undefined {
  return req.headers.authorization ?? url.searchParams.get('Authorization') ?? undefined;
}

async function readUploadBody(req: IncomingMessage): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (!Number.isInteger(declared) || declared < 0) throw badRequest('Content-Length header is required');
  if (declared > NATIVE_UPLOAD_LIMIT) throw badRequest(`the sandbox accepts native uploads up to ${NATIVE_UPLOAD_LIMIT} bytes`);
  const data = await readBody(req, NATIVE_UPLOAD_LIMIT);
  if (data.length !== declared) throw badRequest('body length does not match Content-Length');
  return data;
}

function checkedSha1(header: string | string[] | undefined, data: Buffer): string {
  const actual = createHash('sha1').update(data).digest('hex');
  if (header === 'do_not_verify') return `unverified:${actual}`;
  if (typeof header !== 'string' || !/^[0-9a-fA-F]{40}$/.test(header)) {
    throw badRequest('X-Bz-Content-Sha1 must be a 40-digit hex SHA-1 or do_not_verify');
  }
  if (header.toLowerCase() !== actual) throw badRequest('Sha1 did not match data received');
  return actual;
}

function decodeHeaderName(header: string | string[] | undefined): string {
  if (typeof header !== 'string' || header === '') throw badRequest('X-Bz-File-Name header is required');
  try {
    return decodeURIComponent(header.replace(/\+/g, ' '));
  } catch {
    throw badRequest('X-Bz-File-Name is not valid percent-encoding');
  }
}

const CONTENT_TYPES: Record<string, string> = {
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  png: 'image/png',
  jpg: 'image/jpeg',
  pdf: 'application/pdf',
  gz: 'application/gzip',
};

function contentTypeFor(header: string | undefined, fileName: string): string {
  if (!header) throw badRequest('Content-Type header is required');
  if (header !== 'b2/x-auto') return header;
  return CONTENT_TYPES[fileName.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

function infoHeaders(req: IncomingMessage): Record<string, string> {
  const info: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith('x-bz-info-') && typeof value === 'string') info[name.slice('x-bz-info-'.length)] = decodeURIComponent(value);
  }
  if (Object.keys(info).length > 10) throw badRequest('at most 10 X-Bz-Info-* headers are allowed');
  return info;
}

function lockHeaders(req: IncomingMessage, key: KeyRecord): { retention: FileRetention | null; legalHold: 'on' | 'off' | null } {
  const hold = req.headers['x-bz-file-legal-hold'];
  const mode = req.headers['x-bz-file-retention-mode'];
  const until = req.headers['x-bz-file-retention-retain-until-timestamp'];
  if (hold !== undefined) {
    if (hold !== 'on' && hold !== 'off') throw badRequest('X-Bz-File-Legal-Hold must be on or off');
    requireCapability(key, 'writeFileLegalHolds');
  }
  let retention: FileRetention | null = null;
  if (mode !== undefined || until !== undefined) {
    if ((mode !== 'governance' && mode !== 'compliance') || !/^\d+$/.test(String(until))) {
      throw badRequest('retention headers need a mode (governance|compliance) and a retain-until timestamp');
    }
    requireCapability(key, 'writeFileRetentions');
    retention = { mode, retainUntilTimestamp: Number(until) };
  }
  return { retention, legalHold: (hold as 'on' | 'off' | undefined) ?? null };
}

function requireCapability(key: KeyRecord, capability: Capability): void {
  requireAccess(key, { capability });
}

function parseRange(header: string | undefined, size: number): { first: number; last: number } | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  let first: number;
  let last: number;
  if (!m || (m[1] === '' && m[2] === '')) throw new SandboxError(416, 'range_not_satisfiable', `invalid Range header: ${header}`);
  if (m[1] === '') {
    first = Math.max(0, size - Number(m[2]));
    last = size - 1;
  } else {
    first = Number(m[1]);
    last = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (first > last || first >= size) throw new SandboxError(416, 'range_not_satisfiable', `Range ${header} is outside 0-${size - 1}`);
  return { first, last };
}

// ── JSON operations ─────────────────────────────────────────────────────────

function jsonHandlers(ctx: SandboxContext): Handlers {
  const store = ctx.store;
  const account = store.accountId;

  const checkAccount = (accountId: string) => {
    if (accountId !== account) throw unauthorized(`accountId ${accountId} does not match the authorized account`);
  };
  const bucketFor = (key: KeyRecord, bucketId: string, capability: Capability, extra: { fileName?: string; listPrefix?: string } = {}) => {
    const bucket = store.requireBucket(bucketId);
    requireAccess(key, { capability, bucket, ...extra });
    return bucket;
  };
  const fileFor = (key: KeyRecord, fileId: string, fileName: string, capability: Capability) => {
    const file = store.requireFile(fileId, fileName);
    requireAccess(key, { capability, bucket: store.requireBucket(file.bucketId), fileName });
    return file;
  };
  const bypassAllowed = (key: KeyRecord, requested: boolean | undefined) => {
    if (!requested) return false;
    requireCapability(key, 'bypassGovernance');
    return true;
  };
  const partner = (key: KeyRecord, adminAccountId?: string) => {
    if (!key.isMaster) throw unauthorized('the Partner API needs the account master application key');
    if (adminAccountId !== undefined && adminAccountId !== account) {
      throw unauthorized(`adminAccountId ${adminAccountId} is not an authorized Group admin`);
    }
  };
  const pageJson = (bucketId: string, page: ListPage, key: KeyRecord) =>
    page.entries.map((e) => (e.kind === 'folder' ? folderJson(account, bucketId, e.fileName) : fileJson(account, e.version, key)));
  const statsAt = () => b2StatsTimestamp(store.now());

  return {
    b2_list_buckets({ key, input }) {
      checkAccount(input.accountId);
      if (!hasCapability(key, 'listBuckets') && !hasCapability(key, 'listAllBucketNames')) requireCapability(key, 'listBuckets');
      const filtered = input.bucketId !== undefined || input.bucketName !== undefined;
      if (key.bucketIds && !filtered) {
        throw unauthorized('this application key is restricted to specific buckets: pass bucketId or bucketName');
      }
      const types = input.bucketTypes ?? ['allPublic', 'allPrivate', 'snapshot'];
      const buckets = store
        .listBuckets()
        .filter((b) => input.bucketId === undefined || b.bucketId === input.bucketId)
        .filter((b) => input.bucketName === undefined || b.bucketName === input.bucketName)
        .filter((b) => filtered || !b.reserved)
        .filter((b) => types.includes('all') || types.includes(b.bucketType));
      for (const b of buckets) {
        if (!keyAllowsBucket(key, b.bucketId)) throw unauthorized(`application key is not allowed to access bucket ${b.bucketName}`);
      }
      return { buckets: buckets.map((b) => bucketJson(account, b, key)) };
    },

    b2_create_bucket({ key, input, mutated }) {
      checkAccount(input.accountId);
      requireCapability(key, 'writeBuckets');
      if (key.bucketIds) throw unauthorized('a bucket-restricted application key cannot create buckets');
      requireSettingCapabilities(key, input);
      const bucket = store.createBucket({ bucketName: input.bucketName, bucketType: input.bucketType, ...bucketSettings(input) });
      mutated({ callerKeyId: key.applicationKeyId, bucketId: bucket.bucketId, bucketName: bucket.bucketName });
      return bucketJson(account, bucket, key);
    },

    b2_update_bucket({ key, input, mutated }) {
      checkAccount(input.accountId);
      bucketFor(key, input.bucketId, 'writeBuckets');
      requireSettingCapabilities(key, input);
      const bucket = store.updateBucket(input.bucketId, {
        ...(input.bucketType ? { bucketType: input.bucketType } : {}),
        ...(input.ifRevisionIs !== undefined ? { ifRevisionIs: input.ifRevisionIs } : {}),
        ...bucketSettings(input),
      });
      mutated({ callerKeyId: key.applicationKeyId, bucketId: bucket.bucketId, bucketName: bucket.bucketName });
      return bucketJson(account, bucket, key);
    },

    b2_delete_bucket({ key, input, mutated }) {
      checkAccount(input.accountId);
      bucketFor(key, input.bucketId, 'deleteBuckets');
      const bucket = store.deleteBucket(input.bucketId);
      mutated({ callerKeyId: key.applicationKeyId, bucketId: bucket.bucketId, bucketName: bucket.bucketName });
      return bucketJson(account, bucket, key);
    },

    b2_create_key({ key, input, mutated }) {
      checkAccount(input.accountId);
      requireCapability(key, 'writeKeys');
      if (input.bucketId !== undefined && input.bucketIds !== undefined) throw badRequest('pass bucketIds or bucketId, not both');
      const bucketIds = input.bucketIds ?? (input.bucketId !== undefined ? [input.bucketId] : null);
      if (key.bucketIds && (!bucketIds || bucketIds.some((id) => !key.bucketIds!.includes(id)))) {
        throw unauthorized('a bucket-restricted application key can only create keys for its own buckets');
      }
      const created = store.createKey({
        keyName: input.keyName,
        capabilities: input.capabilities,
        bucketIds,
        namePrefix: input.namePrefix ?? null,
        validDurationInSeconds: input.validDurationInSeconds ?? null,
      });
      mutated({ callerKeyId: key.applicationKeyId, applicationKeyId: created.applicationKeyId });
      return keyJson(account, created, true);
    },

    b2_list_keys({ key, input }) {
      checkAccount(input.accountId);
      requireCapability(key, 'listKeys');
      const page = store.listKeys({
        maxKeyCount: input.maxKeyCount ?? 100,
        ...(input.startApplicationKeyId !== undefined ? { startApplicationKeyId: input.startApplicationKeyId } : {}),
      });
      return { keys: page.keys.map((k) => keyJson(account, k)), nextApplicationKeyId: page.nextApplicationKeyId };
    },

    b2_delete_key({ key, input, mutated }) {
      requireCapability(key, 'deleteKeys');
      const deleted = store.deleteKey(input.applicationKeyId);
      mutated({ callerKeyId: key.applicationKeyId, applicationKeyId: deleted.applicationKeyId });
      return keyJson(account, deleted);
    },

    b2_list_file_names({ key, input }) {
      bucketFor(key, input.bucketId, 'listFiles', { listPrefix: input.prefix ?? '' });
      const page = store.listFileNames(input.bucketId, {
        maxFileCount: input.maxFileCount ?? 100,
        ...optional({ startFileName: input.startFileName, prefix: input.prefix, delimiter: input.delimiter }),
      });
      return { files: pageJson(input.bucketId, page, key), nextFileName: page.nextFileName };
    },

    b2_list_file_versions({ key, input }) {
      bucketFor(key, input.bucketId, 'listFiles', { listPrefix: input.prefix ?? '' });
      const page = store.listFileVersions(input.bucketId, {
        maxFileCount: input.maxFileCount ?? 100,
        ...optional({
          startFileName: input.startFileName,
          startFileId: input.startFileId,
          prefix: input.prefix,
          delimiter: input.delimiter,
        }),
      });
      return { files: pageJson(input.bucketId, page, key), nextFileName: page.nextFileName, nextFileId: page.nextFileId };
    },

    b2_list_unfinished_large_files({ key, input }) {
      bucketFor(key, input.bucketId, 'listFiles', { listPrefix: input.namePrefix ?? '' });
      const page = store.listUnfinishedLargeFiles(input.bucketId, {
        maxFileCount: input.maxFileCount ?? 100,
        ...optional({ namePrefix: input.namePrefix, startFileId: input.startFileId }),
      });
      return { files: page.files.map((f) => fileJson(account, f, key)), nextFileId: page.nextFileId };
    },

    b2_update_file_legal_hold({ key, input, mutated }) {
      const file = fileFor(key, input.fileId, input.fileName, 'writeFileLegalHolds');
      store.setLegalHold(file.fileId, file.fileName, input.legalHold);
      mutated({ callerKeyId: key.applicationKeyId, bucketId: file.bucketId, fileId: file.fileId, fileName: file.fileName });
      return { fileId: file.fileId, fileName: file.fileName, legalHold: input.legalHold };
    },

    b2_update_file_retention({ key, input, mutated }) {
      const file = fileFor(key, input.fileId, input.fileName, 'writeFileRetentions');
      const { mode, retainUntilTimestamp } = input.fileRetention;
      if ((mode === null) !== (retainUntilTimestamp === null)) {
        throw badRequest('fileRetention needs both mode and retainUntilTimestamp, or both null');
      }
      const next = mode === null ? null : { mode, retainUntilTimestamp: retainUntilTimestamp! };
      store.setRetention(file.fileId, file.fileName, next, { bypassGovernance: bypassAllowed(key, input.bypassGovernance) });
      mutated({ callerKeyId: key.applicationKeyId, bucketId: file.bucketId, fileId: file.fileId, fileName: file.fileName });
      return { fileId: file.fileId, fileName: file.fileName, fileRetention: { mode, retainUntilTimestamp } };
    },

    b2_get_bucket_notification_rules({ key, input }) {
      bucketFor(key, input.bucketId, 'readBucketNotifications');
      return { bucketId: input.bucketId, eventNotificationRules: store.getNotificationRules(input.bucketId) };
    },

    b2_set_bucket_notification_rules({ key, input, mutated }) {
      const bucket = bucketFor(key, input.bucketId, 'writeBucketNotifications');
      const rules = store.setNotificationRules(
        input.bucketId,
        input.eventNotificationRules.map((r) => ({
          name: r.name,
          eventTypes: r.eventTypes,
          isEnabled: r.isEnabled,
          objectNamePrefix: r.objectNamePrefix ?? '',
          targetConfiguration: {
            targetType: 'webhook' as const,
            url: r.targetConfiguration.url,
            hmacSha256SigningSecret: r.targetConfiguration.hmacSha256SigningSecret ?? null,
            customHeaders: r.targetConfiguration.customHeaders ?? null,
          },
        })),
      );
      mutated({ callerKeyId: key.applicationKeyId, bucketId: bucket.bucketId, bucketName: bucket.bucketName });
      return { bucketId: input.bucketId, eventNotificationRules: rules };
    },

    b2_delete_file_version({ key, input, mutated }) {
      const file = fileFor(key, input.fileId, input.fileName, 'deleteFiles');
      store.deleteFileVersion(file.fileId, file.fileName, { bypassGovernance: bypassAllowed(key, input.bypassGovernance) });
      mutated({ callerKeyId: key.applicationKeyId, bucketId: file.bucketId, fileId: file.fileId, fileName: file.fileName });
      return { fileId: file.fileId, fileName: file.fileName };
    },

    b2_hide_file({ key, input, mutated }) {
      bucketFor(key, input.bucketId, 'writeFiles', { fileName: input.fileName });
      const marker = store.hideFile(input.bucketId, input.fileName);
      mutated({ callerKeyId: key.applicationKeyId, bucketId: input.bucketId, fileId: marker.fileId, fileName: marker.fileName });
      return fileJson(account, marker, key);
    },

    b2_get_file_info({ key, input }) {
      const file = store.requireFile(input.fileId);
      requireAccess(key, { capability: 'readFiles', bucket: store.requireBucket(file.bucketId), fileName: file.fileName });
      return fileJson(account, file, key);
    },

    b2_get_upload_url({ key, input }) {
      bucketFor(key, input.bucketId, 'writeFiles');
      const grant = store.issueUploadGrant(key, input.bucketId);
      const uploadId = grant.token.slice(-12);
      return {
        bucketId: input.bucketId,
        uploadUrl: `${ctx.urls.apiUrl}${API_PREFIX}b2_upload_file/${input.bucketId}/${uploadId}`,
        authorizationToken: grant.token,
      };
    },

    b2_start_large_file({ key, input, mutated }) {
      bucketFor(key, input.bucketId, 'writeFiles', { fileName: input.fileName });
      if (input.legalHold !== undefined) requireCapability(key, 'writeFileLegalHolds');
      let retention: FileRetention | undefined;
      if (input.fileRetention && input.fileRetention.mode !== null) {
        requireCapability(key, 'writeFileRetentions');
        if (input.fileRetention.retainUntilTimestamp === null) throw badRequest('fileRetention.retainUntilTimestamp is required');
        retention = { mode: input.fileRetention.mode, retainUntilTimestamp: input.fileRetention.retainUntilTimestamp };
      }
      const file = store.startLargeFile(input.bucketId, {
        fileName: input.fileName,
        contentType: input.contentType,
        fileInfo: input.fileInfo ?? {},
        ...(retention ? { retention } : {}),
        legalHold: input.legalHold ?? null,
      });
      mutated({ callerKeyId: key.applicationKeyId, bucketId: input.bucketId, fileId: file.fileId, fileName: file.fileName });
      return fileJson(account, file, key);
    },

    b2_get_upload_part_url({ key, input }) {
      const file = store.requireUnfinished(input.fileId);
      requireAccess(key, { capability: 'writeFiles', bucket: store.requireBucket(file.bucketId), fileName: file.fileName });
      const grant = store.issueUploadGrant(key, file.bucketId, file.fileId);
      return {
        fileId: file.fileId,
        uploadUrl: `${ctx.urls.apiUrl}${API_PREFIX}b2_upload_part/${file.fileId}/${grant.token.slice(-12)}`,
        authorizationToken: grant.token,
      };
    },

    b2_list_parts({ key, input }) {
      const file = store.requireUnfinished(input.fileId);
      requireAccess(key, { capability: 'writeFiles', bucket: store.requireBucket(file.bucketId), fileName: file.fileName });
      const page = store.listParts(input.fileId, {
        maxPartCount: input.maxPartCount ?? 100,
        ...optional({ startPartNumber: input.startPartNumber }),
      });
      return { parts: page.parts.map((p) => partJson(file.fileId, p)), nextPartNumber: page.nextPartNumber };
    },

    b2_finish_large_file({ key, input, mutated }) {
      const file = store.requireUnfinished(input.fileId);
      requireAccess(key, { capability: 'writeFiles', bucket: store.requireBucket(file.bucketId), fileName: file.fileName });
      store.finishLargeFile(file.fileId, { partSha1Array: input.partSha1Array });
      mutated({ callerKeyId: key.applicationKeyId, bucketId: file.bucketId, fileId: file.fileId, fileName: file.fileName });
      return fileJson(account, file, key);
    },

    b2_cancel_large_file({ key, input, mutated }) {
      const file = store.requireUnfinished(input.fileId);
      requireAccess(key, { capability: 'writeFiles', bucket: store.requireBucket(file.bucketId), fileName: file.fileName });
      store.cancelLargeFile(file.fileId);
      mutated({ callerKeyId: key.applicationKeyId, bucketId: file.bucketId, fileId: file.fileId, fileName: file.fileName });
      return { accountId: account, bucketId: file.bucketId, fileId: file.fileId, fileName: file.fileName };
    },

    b2_list_groups({ key, input }) {
      partner(key, input.adminAccountId);
      const all = store
        .listGroups()
        .filter((g) => input.groupName === undefined || g.groupName === input.groupName)
        .filter((g) => input.startGroupId === undefined || Number(g.groupId) >= Number(input.startGroupId));
      const max = input.maxGroupCount ?? 100;
      const groups = all.slice(0, max).map((g) => {
        const active = g.members.filter((m) => !m.ejected);
        return {
          accountStandingDetails: { state: 'B2_GOOD_STANDING' },
          b2Stats: {
            b2BytesStoredCount: active.reduce((n, m) => n + m.b2BytesStoredCount, 0),
            b2FilesStoredCount: active.reduce((n, m) => n + m.b2FilesStoredCount, 0),
            b2StatsAsOfTimestamp: statsAt(),
            bucketCount: active.reduce((n, m) => n + m.bucketCount, 0),
          },
          groupId: g.groupId,
          groupName: g.groupName,
          groupProducts: ['STORAGE'],
          groupStats: { createdTimestamp: b2StatsTimestamp(g.createdAt), groupStatsAsOfTimestamp: statsAt(), memberCount: active.length },
        };
      });
      return { accountId: account, groups, nextGroupId: all[max]?.groupId ?? null };
    },

    b2_list_group_members({ key, input }) {
      partner(key, input.adminAccountId);
      const group = store.requireGroup(input.groupId);
      const members = group.members
        .filter((m) => !m.ejected && (input.startEmail === undefined || m.email >= input.startEmail))
        .sort((a, b) => (a.email < b.email ? -1 : 1));
      const max = input.maxMemberCount || 100;
      return {
        groupId: group.groupId,
        groupName: group.groupName,
        groupMembers: members.slice(0, max).map((m) => groupMemberJson(group, m, statsAt())),
        nextEmail: members[max]?.email ?? null,
      };
    },

    b2_eject_group_member({ key, input, mutated }) {
      partner(key, input.adminAccountId);
      const group = store.requireGroup(input.groupId);
      const member = store.ejectGroupMember(input.groupId, input.memberAccountId, input.email ?? undefined);
      mutated({ callerKeyId: key.applicationKeyId, groupId: group.groupId, memberAccountId: member.accountId });
      return {
        accountId: member.accountId,
        email: member.email,
        groupId: group.groupId,
        groupName: group.groupName,
        region: member.region,
        s3Endpoint: s3EndpointFor(member.region),
      };
    },

    b2_create_group_member({ key, input, mutated }) {
      partner(key, input.adminAccountId);
      const group = store.requireGroup(input.groupId);
      const created = store.addGroupMember(input.groupId, input.memberEmail, input.region ?? 'us-west');
      mutated({ callerKeyId: key.applicationKeyId, groupId: group.groupId, memberAccountId: created.member.accountId });
      const member = groupMemberJson(group, created.member, statsAt());
      return {
        applicationKey: created.applicationKey,
        applicationKeyId: created.applicationKeyId,
        groupMember: {
          accountId: member.accountId,
          email: member.email,
          groupId: member.groupId,
          groupName: member.groupName,
          region: member.region,
          s3Endpoint: member.s3Endpoint,
        },
      };
    },

    b2_reserve_trial_create_account({ key, input, mutated }) {
      partner(key);
      const trial = store.reserveTrialAccount({
        email: input.email,
        region: input.region ?? 'us-west',
        term: input.term,
        storage: input.storage,
      });
      mutated({ callerKeyId: key.applicationKeyId, memberAccountId: trial.accountId });
      return {
        accountId: trial.accountId,
        applicationKey: trial.applicationKey,
        applicationKeyId: trial.applicationKeyId,
        bucketId: trial.bucketId,
        bucketName: trial.bucketName,
        email: trial.email,
        endDate: trial.endDate,
        s3Endpoint: s3EndpointFor(trial.region),
        startDate: trial.startDate,
      };
    },
  };
}

type BucketSettingsInput = Partial<NativeRequest<'b2_update_bucket'>>;

/** Sub-settings of a bucket need their own write capability, as on B2. */
function requireSettingCapabilities(key: KeyRecord, input: BucketSettingsInput): void {
  if (input.fileLockEnabled !== undefined || input.defaultRetention !== undefined) requireCapability(key, 'writeBucketRetentions');
  if (input.defaultServerSideEncryption) requireCapability(key, 'writeBucketEncryption');
  if (input.replicationConfiguration !== undefined) requireCapability(key, 'writeBucketReplications');
}

function bucketSettings(input: BucketSettingsInput) {
  const corsNames = new Set<string>();
  for (const rule of input.corsRules ?? []) {
    if (corsNames.has(rule.corsRuleName)) throw badRequest(`duplicate CORS rule name: ${rule.corsRuleName}`);
    corsNames.add(rule.corsRuleName);
  }
  const sse = input.defaultServerSideEncryption;
  return {
    ...(input.bucketInfo ? { bucketInfo: input.bucketInfo } : {}),
    ...(input.corsRules
      ? {
          corsRules: input.corsRules.map((r) => ({
            corsRuleName: r.corsRuleName,
            allowedOrigins: r.allowedOrigins,
            allowedOperations: r.allowedOperations,
            allowedHeaders: r.allowedHeaders ?? [],
            exposeHeaders: r.exposeHeaders ?? [],
            maxAgeSeconds: r.maxAgeSeconds,
          })),
        }
      : {}),
    ...(input.lifecycleRules
      ? {
          lifecycleRules: input.lifecycleRules.map((r) => ({
            fileNamePrefix: r.fileNamePrefix,
            daysFromHidingToDeleting: r.daysFromHidingToDeleting ?? null,
            daysFromUploadingToHiding: r.daysFromUploadingToHiding ?? null,
            daysFromStartingToCancelingUnfinishedLargeFiles: r.daysFromStartingToCancelingUnfinishedLargeFiles ?? null,
          })),
        }
      : {}),
    ...(sse
      ? {
          defaultServerSideEncryption:
            sse.mode === 'SSE-B2' ? { mode: 'SSE-B2' as const, algorithm: 'AES256' as const } : { mode: null, algorithm: null },
        }
      : {}),
    ...(input.fileLockEnabled !== undefined ? { fileLockEnabled: input.fileLockEnabled } : {}),
    ...(input.defaultRetention ? { defaultRetention: input.defaultRetention } : {}),
    ...(input.replicationConfiguration !== undefined
      ? { replicationConfiguration: (input.replicationConfiguration ?? null) as Record<string, unknown> | null }
      : {}),
  };
}

/** Drop undefined members (the store's options use exactOptional-style absent fields). */
function optional<T extends Record<string, unknown>>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as never;
}
