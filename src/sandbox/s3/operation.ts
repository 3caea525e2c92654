/**
 * What every S3 operation handler receives and returns, and the helpers they share: bucket and
 * key access in S3 terms, ETags, dates, and the object headers of GET/HEAD.
 */
import { createHash } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { hasCapability, requireAccess, type AccessNeed } from '../access.js';
import type { SandboxContext } from '../context.js';
import { SandboxError } from '../errors.js';
import type { BucketRecord, Capability, FileRetention, FileVersion, KeyRecord, MutationTarget } from '../model.js';
import { queryValue, type Caller, type Query } from './auth.js';
import { S3Failure, accessDenied, invalidArgument, noSuchBucket } from './errors.js';

export interface S3Call {
  req: IncomingMessage;
  headers: IncomingHttpHeaders;
  query: Query;
  caller: Caller;
  bucketName: string;
  /** Decoded object key; empty for bucket-level operations. */
  key: string;
  mutated(target: MutationTarget): void;
}

export interface Outcome {
  status: number;
  headers?: Record<string, string>;
  /** An XML document, or a streamed object body. */
  xml?: string;
  stream?: Readable;
}

/** Front-end state the store does not model: S3's multipart ETags (`"<md5 of part md5s>-<n>"`). */
export interface S3State {
  ctx: SandboxContext;
  multipartEtags: Map<string, string>;
}

export type Operation = (call: S3Call) => Promise<Outcome>;

export function header(call: S3Call, name: string): string | undefined {
  const value = call.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

export function param(call: S3Call, name: string): string | undefined {
  return queryValue(call.query, name);
}

/** A bounded integer query parameter (`max-keys`, `part-number-marker`, ...). */
export function intParam(call: S3Call, name: string, fallback: number, min: number, max: number): number {
  const text = param(call, name);
  if (text === undefined || text === '') return fallback;
  if (!/^\d+$/.test(text)) throw invalidArgument(`${name} must be an integer`);
  return Math.max(min, Math.min(max, Number(text)));
}

/** The signed-in key; anonymous callers get S3's AccessDenied. */
export function keyOf(call: S3Call): KeyRecord {
  if (!call.caller.key) throw accessDenied('Anonymous access is not allowed for this operation');
  return call.caller.key;
}

function accessFailure(error: unknown): never {
  if (error instanceof SandboxError) throw accessDenied(error.message);
  throw error;
}

/**
 * The bucket named by the request, after the caller's capability, bucket restriction and name
 * prefix are checked. Anonymous reads are allowed from public buckets only.
 */
export function bucketFor(state: S3State, call: S3Call, need: Omit<AccessNeed, 'bucket'>, anonymousRead = false): BucketRecord {
  const bucket = state.ctx.store.findBucketByName(call.bucketName);
  const key = call.caller.key;
  if (!key) {
    if (anonymousRead && bucket?.bucketType === 'allPublic') return bucket;
    throw accessDenied('Anonymous access is not allowed for this operation');
  }
  if (!bucket) {
    // A bucket-restricted key learns nothing about other buckets.
    if (key.bucketIds !== null) throw accessDenied(`Access Denied: ${call.bucketName}`);
    throw noSuchBucket(call.bucketName);
  }
  try {
    requireAccess(key, { ...need, bucket });
  } catch (error) {
    accessFailure(error);
  }
  return bucket;
}

/** Any one of several capabilities will do (e.g. ListParts: listFiles or writeFiles). */
/** What every listing request starts with: the caller, its prefix, the bucket it may list, the delimiter. */
export function listingScope(state: S3State, call: S3Call): { prefix: string; bucket: BucketRecord; delimiter: string | undefined } {
  keyOf(call);
  const prefix = param(call, 'prefix') ?? '';
  const bucket = bucketFor(state, call, { capability: 'listFiles', listPrefix: prefix });
  return { prefix, bucket, delimiter: param(call, 'delimiter') || undefined };
}

export function requireAnyCapability(key: KeyRecord, capabilities: Capability[]): void {
  if (!capabilities.some((c) => hasCapability(key, c))) {
    throw accessDenied(`application key lacks the ${capabilities.join(' or ')} capability`);
  }
}

function requireCapability(key: KeyRecord, capability: Capability): void {
  if (!hasCapability(key, capability)) throw accessDenied(`application key lacks the ${capability} capability`);
}

export function checkNamePrefix(key: KeyRecord, fileName: string): void {
  if (key.namePrefix && !fileName.startsWith(key.namePrefix)) {
    throw accessDenied(`application key is restricted to keys starting with "${key.namePrefix}"`);
  }
}

export function etagOf(state: S3State, file: FileVersion): string {
  const multipart = state.multipartEtags.get(file.fileId);
  if (multipart) return multipart;
  if (file.contentMd5) return `"${file.contentMd5}"`;
  // Versions made without an MD5 (native large files): a stable stand-in derived from the id.
  return `"${createHash('md5').update(file.fileId).digest('hex')}"`;
}

/** S3's multipart ETag: MD5 over the binary MD5s of the parts, then `-<part count>`. */
export function multipartEtag(partMd5s: string[]): string {
  const hash = createHash('md5');
  for (const md5 of partMd5s) hash.update(Buffer.from(md5, 'hex'));
  return `"${hash.digest('hex')}-${partMd5s.length}"`;
}

export const isoDate = (ms: number) => new Date(ms).toISOString();
export const httpDate = (ms: number) => new Date(ms).toUTCString();

/** `EncodingType=url`: keys and prefixes percent-encoded so any file name survives XML. */
export function keyEncoder(call: S3Call): (name: string | undefined) => string | undefined {
  const encoding = param(call, 'encoding-type');
  if (encoding === undefined) return (name) => name;
  if (encoding !== 'url') throw invalidArgument('Invalid Encoding Method specified in Request');
  return (name) => (name === undefined ? undefined : encodeURIComponent(name));
}

/** Header-safe metadata value: printable ASCII as is, anything else percent-encoded. */
function headerSafe(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) ? value : encodeURIComponent(value);
}

/** Response headers describing one object version (GET and HEAD). */
export function objectHeaders(state: S3State, file: FileVersion, key: KeyRecord | null): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': file.contentType,
    ETag: etagOf(state, file),
    'Last-Modified': httpDate(file.uploadTimestamp),
    'Accept-Ranges': 'bytes',
    'x-amz-version-id': file.fileId,
  };
  for (const [name, value] of Object.entries(file.fileInfo)) {
    if (/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(name) && !name.startsWith('b2-')) headers[`x-amz-meta-${name}`] = headerSafe(value);
  }
  if (file.serverSideEncryption.mode === 'SSE-B2') headers['x-amz-server-side-encryption'] = 'AES256';
  const bucket = state.ctx.store.findBucketById(file.bucketId);
  if (key && bucket?.fileLockEnabled) {
    if (hasCapability(key, 'readFileLegalHolds')) headers['x-amz-object-lock-legal-hold'] = file.legalHold === 'on' ? 'ON' : 'OFF';
    if (hasCapability(key, 'readFileRetentions') && file.retention) {
      headers['x-amz-object-lock-mode'] = file.retention.mode.toUpperCase();
      headers['x-amz-object-lock-retain-until-date'] = isoDate(file.retention.retainUntilTimestamp);
    }
  }
  return headers;
}

/** `x-amz-meta-*` request headers → B2 file info. */
export function metadataFrom(call: S3Call): Record<string, string> {
  const info: Record<string, string> = {};
  for (const [name, value] of Object.entries(call.headers)) {
    if (name.startsWith('x-amz-meta-') && typeof value === 'string') info[name.slice('x-amz-meta-'.length)] = value;
  }
  return info;
}

/** `x-amz-server-side-encryption: AES256` → SSE-B2; other algorithms are not offered by B2. */
export function encryptionFrom(call: S3Call) {
  const sse = header(call, 'x-amz-server-side-encryption');
  if (sse === undefined) return {};
  if (sse !== 'AES256') throw invalidArgument(`Server-side encryption ${sse} is not supported; use AES256`);
  return { serverSideEncryption: { mode: 'SSE-B2' as const, algorithm: 'AES256' as const } };
}

/** Parse `bytes=a-b` / `bytes=a-` / `bytes=-n` against a size (inclusive bounds). */
export function parseByteRange(text: string, size: number): { first: number; last: number } {
  const m = /^bytes=(\d*)-(\d*)$/.exec(text.trim());
  if (!m || (m[1] === '' && m[2] === '')) throw new S3Failure(416, 'InvalidRange', `The requested range is not satisfiable: ${text}`);
  let first: number;
  let last: number;
  if (m[1] === '') {
    first = Math.max(0, size - Number(m[2]));
    last = size - 1;
  } else {
    first = Number(m[1]);
    last = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (size === 0 || first > last || first >= size) {
    throw new S3Failure(416, 'InvalidRange', `The requested range ${text} is not satisfiable for an object of ${size} bytes`);
  }
  return { first, last };
}

/** `x-amz-copy-source`: `[/]bucket/key[?versionId=...]`, percent-encoded. */
export function parseCopySource(text: string | undefined): { bucketName: string; key: string; versionId?: string } {
  if (!text) throw invalidArgument('x-amz-copy-source is required');
  const [pathPart, queryPart] = text.split('?', 2) as [string, string | undefined];
  let path: string;
  try {
    path = decodeURIComponent(pathPart.startsWith('/') ? pathPart.slice(1) : pathPart);
  } catch {
    throw invalidArgument('x-amz-copy-source is not valid percent-encoding');
  }
  const slash = path.indexOf('/');
  if (slash <= 0 || slash === path.length - 1) throw invalidArgument('x-amz-copy-source must be bucket/key');
  const versionId = queryPart ? (new URLSearchParams(queryPart).get('versionId') ?? undefined) : undefined;
  return { bucketName: path.slice(0, slash), key: path.slice(slash + 1), ...(versionId ? { versionId } : {}) };
}

/** Object Lock request headers → the store's retention and legal hold (each needs its write capability). */
export function lockFrom(call: S3Call, key: KeyRecord): { retention?: FileRetention; legalHold?: 'on' | 'off' } {
  const mode = header(call, 'x-amz-object-lock-mode');
  const until = header(call, 'x-amz-object-lock-retain-until-date');
  const hold = header(call, 'x-amz-object-lock-legal-hold');
  const lock: { retention?: FileRetention; legalHold?: 'on' | 'off' } = {};
  if (mode !== undefined || until !== undefined) {
    const retainUntil = until === undefined ? Number.NaN : Date.parse(until);
    if ((mode !== 'GOVERNANCE' && mode !== 'COMPLIANCE') || Number.isNaN(retainUntil)) {
      throw invalidArgument(
        'x-amz-object-lock-mode (GOVERNANCE or COMPLIANCE) and x-amz-object-lock-retain-until-date must be given together',
      );
    }
    requireCapability(key, 'writeFileRetentions');
    lock.retention = { mode: mode === 'GOVERNANCE' ? 'governance' : 'compliance', retainUntilTimestamp: retainUntil };
  }
  if (hold !== undefined) {
    if (hold !== 'ON' && hold !== 'OFF') throw invalidArgument('x-amz-object-lock-legal-hold must be ON or OFF');
    requireCapability(key, 'writeFileLegalHolds');
    lock.legalHold = hold === 'ON' ? 'on' : 'off';
  }
  return lock;
}

/** `x-amz-bypass-governance-retention: true`, allowed only with the bypassGovernance capability. */
export function bypassFrom(call: S3Call, key: KeyRecord): boolean {
  if (header(call, 'x-amz-bypass-governance-retention')?.toLowerCase() !== 'true') return false;
  requireCapability(key, 'bypassGovernance');
  return true;
}

/** The declared body length, or undefined for a chunked upload; S3 needs one or the other. */
export function declaredLength(call: S3Call): number | undefined {
  const text = header(call, 'content-length');
  if (text === undefined) {
    if (header(call, 'transfer-encoding') === undefined)
      throw new S3Failure(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
    return undefined;
  }
  if (!/^\d+$/.test(text)) throw invalidArgument('Content-Length must be a non-negative integer');
  return Number(text);
}
