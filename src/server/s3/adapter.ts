/**
 * The S3 data plane: the one module that uses the AWS SDK (`@aws-sdk/client-s3` and
 * `@aws-sdk/s3-request-presigner`). Both are loaded on the first call, never at start-up, so
 * `tools/list` and cold start do not pay for them.
 *
 * The adapter speaks plain, JSON-ready shapes (ISO dates, decoded keys, no `undefined` noise) and
 * throws `S3Error`s carrying S3's code and status. Listing calls ask for `EncodingType=url`, so
 * keys with control characters or edge whitespace survive the XML, and decode only answers that
 * declare that encoding (servers that ignore the request send keys as they are).
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { S3Error, s3ErrorFrom } from './errors.js';

export interface S3AdapterOptions {
  /** The authorized account's `s3ApiUrl`. */
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  userAgent?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ObjectSummary {
  key: string;
  size: number;
  etag?: string;
  lastModified?: string;
  storageClass?: string;
}

export interface ListObjectsInput {
  bucket: string;
  prefix?: string | undefined;
  delimiter?: string | undefined;
  maxKeys?: number | undefined;
  continuationToken?: string | undefined;
  startAfter?: string | undefined;
}

export interface ListObjectsResult {
  bucket: string;
  prefix?: string;
  delimiter?: string;
  keyCount: number;
  isTruncated: boolean;
  nextContinuationToken?: string;
  objects: ObjectSummary[];
  commonPrefixes: string[];
}

export interface ListVersionsInput {
  bucket: string;
  prefix?: string | undefined;
  delimiter?: string | undefined;
  maxKeys?: number | undefined;
  keyMarker?: string | undefined;
  versionIdMarker?: string | undefined;
}

export interface ObjectVersion {
  key: string;
  versionId?: string;
  isLatest: boolean;
  lastModified?: string;
  etag?: string;
  size?: number;
  storageClass?: string;
}

export interface DeleteMarker {
  key: string;
  versionId?: string;
  isLatest: boolean;
  lastModified?: string;
}

export interface ListVersionsResult {
  bucket: string;
  prefix?: string;
  delimiter?: string;
  isTruncated: boolean;
  nextKeyMarker?: string;
  nextVersionIdMarker?: string;
  versions: ObjectVersion[];
  deleteMarkers: DeleteMarker[];
  commonPrefixes: string[];
}

export interface ObjectRef {
  bucket: string;
  key: string;
  versionId?: string | undefined;
}

export interface ObjectInfo {
  bucket: string;
  key: string;
  versionId?: string;
  contentType?: string;
  contentLength?: number;
  contentRange?: string;
  etag?: string;
  lastModified?: string;
  metadata: Record<string, string>;
  serverSideEncryption?: string;
  objectLockMode?: string;
  objectLockRetainUntilDate?: string;
  objectLockLegalHold?: string;
}

export interface ObjectBody extends ObjectInfo {
  /** The body, streamed; the caller must consume or destroy it. */
  body: Readable;
}

export interface PutObjectInput {
  bucket: string;
  key: string;
  body: Buffer;
  contentType?: string | undefined;
  metadata?: Record<string, string> | undefined;
  serverSideEncryption?: 'AES256' | undefined;
}

export interface PutObjectResult {
  bucket: string;
  key: string;
  size: number;
  etag?: string;
  versionId?: string;
}

export interface CopyObjectInput {
  sourceBucket: string;
  sourceKey: string;
  sourceVersionId?: string | undefined;
  destinationBucket: string;
  destinationKey: string;
  metadataDirective: 'COPY' | 'REPLACE';
  metadata?: Record<string, string> | undefined;
  contentType?: string | undefined;
}

export interface CopyObjectResult {
  etag?: string;
  lastModified?: string;
  versionId?: string;
  copySourceVersionId?: string;
}

export interface DeleteObjectResult {
  deleteMarker: boolean;
  versionId?: string;
}

export interface DeleteObjectsInput {
  bucket: string;
  objects: Array<{ key: string; versionId?: string }>;
  quiet: boolean;
  bypassGovernance: boolean;
}

export interface DeleteObjectsResult {
  deleted: Array<{ key: string; versionId?: string; deleteMarker?: boolean; deleteMarkerVersionId?: string }>;
  errors: Array<{ key: string; versionId?: string; code: string; message: string }>;
}

export interface CreateMultipartInput {
  bucket: string;
  key: string;
  contentType?: string | undefined;
  metadata?: Record<string, string> | undefined;
  serverSideEncryption?: 'AES256' | undefined;
}

export interface UploadPartCopyInput {
  bucket: string;
  key: string;
  uploadId: string;
  partNumber: number;
  sourceBucket: string;
  sourceKey: string;
  sourceVersionId?: string | undefined;
  /** `bytes=first-last`. */
  sourceRange?: string | undefined;
}

export interface CompletedPart {
  partNumber: number;
  etag: string;
}

export interface ListPartsInput {
  bucket: string;
  key: string;
  uploadId: string;
  maxParts?: number | undefined;
  partNumberMarker?: number | undefined;
}

export interface ListPartsResult {
  bucket: string;
  key: string;
  uploadId: string;
  isTruncated: boolean;
  nextPartNumberMarker?: number;
  parts: Array<{ partNumber: number; etag?: string; size?: number; lastModified?: string }>;
}

export interface ListUploadsInput {
  bucket: string;
  prefix?: string | undefined;
  delimiter?: string | undefined;
  maxUploads?: number | undefined;
  keyMarker?: string | undefined;
  uploadIdMarker?: string | undefined;
}

export interface ListUploadsResult {
  bucket: string;
  prefix?: string;
  delimiter?: string;
  isTruncated: boolean;
  nextKeyMarker?: string;
  nextUploadIdMarker?: string;
  uploads: Array<{ key: string; uploadId: string; initiated?: string; storageClass?: string }>;
  commonPrefixes: string[];
}

export interface LifecycleRuleInput {
  id: string;
  status: 'Enabled' | 'Disabled';
  filter?: { prefix?: string };
  expiration?: { days?: number; expiredObjectDeleteMarker?: boolean };
  noncurrentVersionExpiration?: { noncurrentDays: number };
  abortIncompleteMultipartUpload?: { daysAfterInitiation: number };
}

export interface S3Adapter {
  headBucket(bucket: string, options?: CallOptions): Promise<{ bucket: string; region?: string }>;
  getBucketLocation(bucket: string, options?: CallOptions): Promise<{ bucket: string; region: string }>;
  listObjectsV2(input: ListObjectsInput, options?: CallOptions): Promise<ListObjectsResult>;
  listObjectVersions(input: ListVersionsInput, options?: CallOptions): Promise<ListVersionsResult>;
  headObject(input: ObjectRef, options?: CallOptions): Promise<ObjectInfo>;
  getObject(input: ObjectRef & { range?: string | undefined }, options?: CallOptions): Promise<ObjectBody>;
  putObject(input: PutObjectInput, options?: CallOptions): Promise<PutObjectResult>;
  copyObject(input: CopyObjectInput, options?: CallOptions): Promise<CopyObjectResult>;
  deleteObject(input: ObjectRef, options?: CallOptions): Promise<DeleteObjectResult>;
  deleteObjects(input: DeleteObjectsInput, options?: CallOptions): Promise<DeleteObjectsResult>;
  createMultipartUpload(input: CreateMultipartInput, options?: CallOptions): Promise<{ bucket: string; key: string; uploadId: string }>;
  uploadPartCopy(
    input: UploadPartCopyInput,
    options?: CallOptions,
  ): Promise<{ partNumber: number; etag?: string; lastModified?: string; copySourceVersionId?: string }>;
  completeMultipartUpload(
    input: { bucket: string; key: string; uploadId: string; parts: CompletedPart[] },
    options?: CallOptions,
  ): Promise<{ bucket: string; key: string; etag?: string; versionId?: string; location?: string }>;
  abortMultipartUpload(input: { bucket: string; key: string; uploadId: string }, options?: CallOptions): Promise<void>;
  listParts(input: ListPartsInput, options?: CallOptions): Promise<ListPartsResult>;
  listMultipartUploads(input: ListUploadsInput, options?: CallOptions): Promise<ListUploadsResult>;
  putBucketLifecycle(bucket: string, rules: LifecycleRuleInput[], options?: CallOptions): Promise<void>;
  deleteBucketLifecycle(bucket: string, options?: CallOptions): Promise<void>;
  presignGetObject(input: ObjectRef & { expiresIn: number }): Promise<string>;
  /** With `contentType`, the upload must send exactly that Content-Type (it is signed). */
  presignPutObject(input: { bucket: string; key: string; contentType?: string | undefined; expiresIn: number }): Promise<string>;
  presignUploadPart(input: { bucket: string; key: string; uploadId: string; partNumber: number; expiresIn: number }): Promise<string>;
}

type Sdk = typeof import('@aws-sdk/client-s3');

interface Loaded {
  sdk: Sdk;
  /** Retries transient failures (reads and idempotent writes). */
  client: S3Client;
  /** One attempt only: a lost answer must not repeat a call that adds something each time. */
  singleAttempt: S3Client;
}

const iso = (date: Date | undefined): string | undefined => date?.toISOString();
/** ETags as S3 spells them, in quotes; some servers leave them out in XML answers, or send none. */
const quotedEtag = (etag: string | undefined): string | undefined => (!etag ? undefined : etag.startsWith('"') ? etag : `"${etag}"`);

/** How one listing answer spells its keys. */
interface KeySpelling {
  /** A key or prefix of the answer, decoded when the answer declares `EncodingType=url`. */
  key(value: string | undefined, field: string): string;
  /** A `NextKeyMarker`: the page's last key or prefix, which servers encode or not. */
  marker(value: string | undefined, page: Array<{ raw: string | undefined; key: string }>): string | undefined;
}

const MAX_QUOTED = 200;

/** S3 `EncodingType=url` values: percent-encoding, with `+` for spaces. */
function percentDecoded(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, '%20'));
  } catch {
    return undefined;
  }
}

function keySpelling(encodingType: string | undefined): KeySpelling {
  if (encodingType?.toLowerCase() !== 'url') {
    return { key: (value) => value ?? '', marker: (value) => value };
  }
  return {
    key(value, field) {
      if (value === undefined) return '';
      const key = percentDecoded(value);
      if (key === undefined) {
        const quoted = JSON.stringify(value.length > MAX_QUOTED ? `${value.slice(0, MAX_QUOTED)}…` : value);
        throw new S3Error(
          502,
          'invalid_response',
          `S3 answered with a garbled listing: it declared EncodingType=url, but the ${field} ${quoted} is not valid percent-encoding.`,
        );
      }
      return key;
    },
    marker(value, page) {
      if (value === undefined) return undefined;
      const entry = [...page].reverse().find((e) => e.raw === value);
      if (entry) return entry.key;
      if (page.some((e) => e.key === value)) return value;
      return percentDecoded(value) ?? value;
    },
  };
}

/**
 * Operations S3 requires an integrity header for. The SDK now sends a CRC32 there, which S3-
 * compatible services that predate flexible checksums refuse; Content-MD5 is accepted by all of
 * them, so these requests carry Content-MD5 instead.
 */
const CONTENT_MD5_COMMANDS = new Set(['DeleteObjectsCommand', 'PutBucketLifecycleConfigurationCommand']);
/** Late in the build step, after the SDK's own checksum middleware has set its headers. */
const CONTENT_MD5_STEP = { step: 'build' as const, priority: 'low' as const, name: 'contentMd5Instead' };

interface WireRequest {
  headers: Record<string, string>;
  body?: unknown;
}

interface BuildArgs {
  input: object;
  request: unknown;
}
type BuildNext = (args: BuildArgs) => Promise<{ output: object; response: unknown }>;

const contentMd5Instead =
  (next: BuildNext, context: { commandName?: string }): BuildNext =>
  async (args) => {
    const request = args.request as WireRequest;
    if (CONTENT_MD5_COMMANDS.has(context.commandName ?? '') && (typeof request.body === 'string' || request.body instanceof Uint8Array)) {
      for (const name of Object.keys(request.headers)) {
        if (name.toLowerCase().startsWith('x-amz-checksum-') || name.toLowerCase() === 'x-amz-sdk-checksum-algorithm')
          delete request.headers[name];
      }
      request.headers['content-md5'] = createHash('md5').update(request.body).digest('base64');
    }
    return next(args);
  };

/** A success status whose body the SDK could not read: a garbled answer, not an S3 error code. */
function unreadableSuccess(error: unknown): S3Error | undefined {
  if (error instanceof S3Error) return undefined;
  const failure = error as { message?: string; $metadata?: { httpStatusCode?: number }; $response?: { statusCode?: number } } | undefined;
  const status = failure?.$metadata?.httpStatusCode ?? failure?.$response?.statusCode;
  if (status === undefined || status < 200 || status > 299) return undefined;
  const detail = (failure?.message ?? '').replace(/\s+/g, ' ').slice(0, MAX_QUOTED);
  return new S3Error(
    502,
    'invalid_response',
    `S3 answered HTTP ${status} with a body that is not a valid S3 answer${detail ? ` (${detail})` : ''}.`,
  );
}

/** Every S3 listing answer says whether it is truncated; one that does not is not a listing. */
function requireListing<T extends { IsTruncated?: boolean | undefined }>(out: T, operation: string): T {
  if (out.IsTruncated === undefined)
    throw new S3Error(502, 'invalid_response', `S3 answered ${operation} with a body that is not a listing (no IsTruncated).`);
  return out;
}

/** NoSuchUpload on a retry: the attempt before it may have completed the upload. */
function forgotRetriedUpload(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { attempts?: number } } | undefined;
  return failure?.name === 'NoSuchUpload' && (failure.$metadata?.attempts ?? 1) > 1;
}

const unquoted = (etag: string) => etag.trim().replace(/^"|"$/g, '');

/**
 * Whether `etag` is the multipart ETag of exactly these parts: the MD5 of their binary MD5s, then
 * `-<count>`. Parts whose ETags are not MD5s (some encryption modes) are matched by the count.
 */
function sameMultipartEtag(etag: string, parts: CompletedPart[]): boolean {
  const md5s = parts.map((p) => unquoted(p.etag));
  if (!md5s.every((md5) => /^[0-9a-f]{32}$/i.test(md5))) return unquoted(etag).endsWith(`-${parts.length}`);
  const hash = createHash('md5');
  for (const md5 of md5s) hash.update(Buffer.from(md5, 'hex'));
  return unquoted(etag).toLowerCase() === `${hash.digest('hex')}-${parts.length}`;
}

/** `T` with each member that may be undefined made optional instead: what `defined` leaves of it. */
type Defined<T> = { [K in keyof T as undefined extends T[K] ? never : K]: T[K] } & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** Drop undefined members so results serialize without noise. */
function defined<T extends Record<string, unknown>>(value: T): Defined<T> {
  for (const key of Object.keys(value)) if (value[key] === undefined) delete value[key];
  return value as Defined<T>;
}

/** `x-amz-copy-source`: bucket/key percent-encoded (slashes kept), with an optional version. */
function copySource(bucket: string, key: string, versionId?: string): string {
  const path = `${encodeURIComponent(bucket)}/${key.split('/').map(encodeURIComponent).join('/')}`;
  return versionId ? `${path}?versionId=${encodeURIComponent(versionId)}` : path;
}

export function createS3Adapter(options: S3AdapterOptions): S3Adapter {
  let loading: Promise<Loaded> | undefined;

  const load = (): Promise<Loaded> => {
    loading ??= (async () => {
      const sdk = await import('@aws-sdk/client-s3');
      const config = {
        endpoint: options.endpoint,
        region: options.region,
        forcePathStyle: true,
        credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
        // B2 checks what S3 requires; the newer default trailing checksums are not needed.
        requestChecksumCalculation: 'WHEN_REQUIRED' as const,
        responseChecksumValidation: 'WHEN_REQUIRED' as const,
        requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000 },
        ...(options.userAgent ? { customUserAgent: options.userAgent } : {}),
      };
      const client = new sdk.S3Client({ ...config, maxAttempts: 3 });
      const singleAttempt = new sdk.S3Client({ ...config, maxAttempts: 1 });
      // A build-step middleware of the shape above; the SDK's overloaded `add` cannot infer which step's type it is.
      for (const c of [client, singleAttempt]) c.middlewareStack.add(contentMd5Instead as never, CONTENT_MD5_STEP);
      return { sdk, client, singleAttempt };
    })().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };

  /** Run one SDK call; every failure leaves as an S3Error. */
  async function call<T>(work: (loaded: Loaded) => Promise<T>, notFound: 'NoSuchKey' | 'NoSuchBucket' = 'NoSuchKey'): Promise<T> {
    try {
      return await work(await load());
    } catch (error) {
      throw unreadableSuccess(error) ?? s3ErrorFrom(error, notFound);
    }
  }

  const send = (options?: CallOptions) => (options?.signal ? { abortSignal: options.signal } : {});

  async function presign(build: (sdk: Sdk) => object, expiresIn: number, signContentType = false): Promise<string> {
    return call(async ({ sdk, client }) => {
      const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
      // The presigner and the client may resolve different @smithy type versions; the objects match.
      return getSignedUrl(client as never, build(sdk) as never, {
        expiresIn,
        ...(signContentType ? { signableHeaders: new Set(['content-type']) } : {}),
      });
    });
  }

  return {
    headBucket: (bucket, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(new sdk.HeadBucketCommand({ Bucket: bucket }), send(o));
        return defined({ bucket, region: out.BucketRegion });
      }, 'NoSuchBucket'),

    getBucketLocation: (bucket, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(new sdk.GetBucketLocationCommand({ Bucket: bucket }), send(o));
        // An empty LocationConstraint is S3's way of saying us-east-1.
        return { bucket, region: out.LocationConstraint || 'us-east-1' };
      }, 'NoSuchBucket'),

    listObjectsV2: (input, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(
          new sdk.ListObjectsV2Command({
            Bucket: input.bucket,
            Prefix: input.prefix,
            Delimiter: input.delimiter,
            MaxKeys: input.maxKeys,
            ContinuationToken: input.continuationToken,
            StartAfter: input.startAfter,
            EncodingType: 'url',
          }),
          send(o),
        );
        requireListing(out, 'ListObjectsV2');
        const spelling = keySpelling(out.EncodingType);
        return defined({
          bucket: input.bucket,
          prefix: input.prefix,
          delimiter: input.delimiter,
          keyCount: out.KeyCount ?? out.Contents?.length ?? 0,
          isTruncated: out.IsTruncated ?? false,
          nextContinuationToken: out.NextContinuationToken,
          objects: (out.Contents ?? []).map((c) =>
            defined({
              key: spelling.key(c.Key, 'key'),
              size: c.Size ?? 0,
              etag: c.ETag,
              lastModified: iso(c.LastModified),
              storageClass: c.StorageClass,
            }),
          ),
          commonPrefixes: (out.CommonPrefixes ?? []).map((p) => spelling.key(p.Prefix, 'common prefix')),
        });
      }, 'NoSuchBucket'),

    listObjectVersions: (input, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(
          new sdk.ListObjectVersionsCommand({
            Bucket: input.bucket,
            Prefix: input.prefix,
            Delimiter: input.delimiter,
            MaxKeys: input.maxKeys,
            KeyMarker: input.keyMarker,
            VersionIdMarker: input.versionIdMarker,
            EncodingType: 'url',
          }),
          send(o),
        );
        requireListing(out, 'ListObjectVersions');
        const spelling = keySpelling(out.EncodingType);
        const page = [...(out.Versions ?? []), ...(out.DeleteMarkers ?? [])].map((e) => ({ raw: e.Key, key: spelling.key(e.Key, 'key') }));
        const prefixes = (out.CommonPrefixes ?? []).map((p) => ({ raw: p.Prefix, key: spelling.key(p.Prefix, 'common prefix') }));
        return defined({
          bucket: input.bucket,
          prefix: input.prefix,
          delimiter: input.delimiter,
          isTruncated: out.IsTruncated ?? false,
          nextKeyMarker: spelling.marker(out.NextKeyMarker, [...page, ...prefixes]),
          nextVersionIdMarker: out.NextVersionIdMarker,
          versions: (out.Versions ?? []).map((v) =>
            defined({
              key: spelling.key(v.Key, 'key'),
              versionId: v.VersionId,
              isLatest: v.IsLatest ?? false,
              lastModified: iso(v.LastModified),
              etag: v.ETag,
              size: v.Size,
              storageClass: v.StorageClass,
            }),
          ),
          deleteMarkers: (out.DeleteMarkers ?? []).map((m) =>
            defined({
              key: spelling.key(m.Key, 'key'),
              versionId: m.VersionId,
              isLatest: m.IsLatest ?? false,
              lastModified: iso(m.LastModified),
            }),
          ),
          commonPrefixes: prefixes.map((p) => p.key),
        });
      }, 'NoSuchBucket'),

    headObject: (input, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(
          new sdk.HeadObjectCommand({ Bucket: input.bucket, Key: input.key, VersionId: input.versionId }),
          send(o),
        );
        return objectInfo(input, out);
      }),

    getObject: (input, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(
          new sdk.GetObjectCommand({ Bucket: input.bucket, Key: input.key, VersionId: input.versionId, Range: input.range }),
          send(o),
        );
        return { ...objectInfo(input, out), body: out.Body as Readable };
      }),

    putObject: (input, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(
          new sdk.PutObjectCommand({
            Bucket: input.bucket,
            Key: input.key,
            Body: input.body,
            ContentLength: input.body.length,
            ContentType: input.contentType,
            Metadata: input.metadata,
            ServerSideEncryption: input.serverSideEncryption,
          }),
          send(o),
        );
        return defined({ bucket: input.bucket, key: input.key, size: input.body.length, etag: out.ETag, versionId: out.VersionId });
      }),

    copyObject: (input, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(
          new sdk.CopyObjectCommand({
            Bucket: input.destinationBucket,
            Key: input.destinationKey,
            CopySource: copySource(input.sourceBucket, input.sourceKey, input.sourceVersionId),
            MetadataDirective: input.metadataDirective,
            ...(input.metadataDirective === 'REPLACE' ? { Metadata: input.metadata ?? {}, ContentType: input.contentType } : {}),
          }),
          send(o),
        );
        return defined({
          etag: quotedEtag(out.CopyObjectResult?.ETag),
          lastModified: iso(out.CopyObjectResult?.LastModified),
          versionId: out.VersionId,
          copySourceVersionId: out.CopySourceVersionId,
        });
      }),

    deleteObject: (input, o) =>
      call(async ({ sdk, client, singleAttempt }) => {
        // A versioned delete is idempotent; a versionless one adds a delete marker each time.
        const target = input.versionId ? client : singleAttempt;
        const out = await target.send(
          new sdk.DeleteObjectCommand({ Bucket: input.bucket, Key: input.key, VersionId: input.versionId }),
          send(o),
        );
        return defined({ deleteMarker: out.DeleteMarker ?? false, versionId: out.VersionId });
      }),

    deleteObjects: (input, o) =>
      call(async ({ sdk, singleAttempt }) => {
        const out = await singleAttempt.send(
          new sdk.DeleteObjectsCommand({
            Bucket: input.bucket,
            Delete: { Objects: input.objects.map((x) => ({ Key: x.key, VersionId: x.versionId })), Quiet: input.quiet },
            ...(input.bypassGovernance ? { BypassGovernanceRetention: true } : {}),
          }),
          send(o),
        );
        return {
          deleted: (out.Deleted ?? []).map((d) =>
            defined({
              key: d.Key ?? '',
              versionId: d.VersionId,
              deleteMarker: d.DeleteMarker,
              deleteMarkerVersionId: d.DeleteMarkerVersionId,
            }),
          ),
          errors: (out.Errors ?? []).map((e) =>
            defined({ key: e.Key ?? '', versionId: e.VersionId, code: e.Code ?? 'unknown_error', message: e.Message ?? '' }),
          ),
        };
      }),

    createMultipartUpload: (input, o) =>
      call(async ({ sdk, singleAttempt }) => {
        const out = await singleAttempt.send(
          new sdk.CreateMultipartUploadCommand({
            Bucket: input.bucket,
            Key: input.key,
            ContentType: input.contentType,
            Metadata: input.metadata,
            ServerSideEncryption: input.serverSideEncryption,
          }),
          send(o),
        );
        if (!out.UploadId)
          throw Object.assign(new Error('CreateMultipartUpload returned no UploadId'), {
            $metadata: { httpStatusCode: 502 },
            name: 'invalid_response',
          });
        return { bucket: input.bucket, key: input.key, uploadId: out.UploadId };
      }),

    uploadPartCopy: (input, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(
          new sdk.UploadPartCopyCommand({
            Bucket: input.bucket,
            Key: input.key,
            UploadId: input.uploadId,
            PartNumber: input.partNumber,
            CopySource: copySource(input.sourceBucket, input.sourceKey, input.sourceVersionId),
            CopySourceRange: input.sourceRange,
          }),
          send(o),
        );
        return defined({
          partNumber: input.partNumber,
          etag: quotedEtag(out.CopyPartResult?.ETag),
          lastModified: iso(out.CopyPartResult?.LastModified),
          copySourceVersionId: out.CopySourceVersionId,
        });
      }),

    completeMultipartUpload: (input, o) =>
      call(async ({ sdk, client }) => {
        try {
          const out = await client.send(
            new sdk.CompleteMultipartUploadCommand({
              Bucket: input.bucket,
              Key: input.key,
              UploadId: input.uploadId,
              MultipartUpload: { Parts: input.parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
            }),
            send(o),
          );
          return defined({
            bucket: input.bucket,
            key: input.key,
            etag: quotedEtag(out.ETag),
            versionId: out.VersionId,
            location: out.Location,
          });
        } catch (error) {
          if (!forgotRetriedUpload(error)) throw error;
          // An earlier attempt completed the upload but its answer was lost; this server then
          // forgets the upload id. The object under the key, with these parts' ETag, is the proof.
          const head = await client
            .send(new sdk.HeadObjectCommand({ Bucket: input.bucket, Key: input.key }), send(o))
            .catch(() => undefined);
          if (!head?.ETag || !sameMultipartEtag(head.ETag, input.parts)) throw error;
          return defined({ bucket: input.bucket, key: input.key, etag: quotedEtag(head.ETag), versionId: head.VersionId });
        }
      }),

    abortMultipartUpload: (input, o) =>
      call(async ({ sdk, client }) => {
        await client.send(new sdk.AbortMultipartUploadCommand({ Bucket: input.bucket, Key: input.key, UploadId: input.uploadId }), send(o));
      }),

    listParts: (input, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(
          new sdk.ListPartsCommand({
            Bucket: input.bucket,
            Key: input.key,
            UploadId: input.uploadId,
            MaxParts: input.maxParts,
            PartNumberMarker: input.partNumberMarker === undefined ? undefined : String(input.partNumberMarker),
          }),
          send(o),
        );
        const next = out.NextPartNumberMarker === undefined ? undefined : Number(out.NextPartNumberMarker);
        return defined({
          bucket: input.bucket,
          key: input.key,
          uploadId: input.uploadId,
          isTruncated: out.IsTruncated ?? false,
          nextPartNumberMarker: out.IsTruncated ? next : undefined,
          parts: (out.Parts ?? []).map((p) =>
            defined({ partNumber: p.PartNumber ?? 0, etag: p.ETag, size: p.Size, lastModified: iso(p.LastModified) }),
          ),
        });
      }),

    listMultipartUploads: (input, o) =>
      call(async ({ sdk, client }) => {
        const out = await client.send(
          new sdk.ListMultipartUploadsCommand({
            Bucket: input.bucket,
            Prefix: input.prefix,
            Delimiter: input.delimiter,
            MaxUploads: input.maxUploads,
            KeyMarker: input.keyMarker,
            UploadIdMarker: input.uploadIdMarker,
            EncodingType: 'url',
          }),
          send(o),
        );
        requireListing(out, 'ListMultipartUploads');
        const spelling = keySpelling(out.EncodingType);
        const uploads = (out.Uploads ?? []).map((u) => ({ raw: u.Key, key: spelling.key(u.Key, 'key'), upload: u }));
        const prefixes = (out.CommonPrefixes ?? []).map((p) => ({ raw: p.Prefix, key: spelling.key(p.Prefix, 'common prefix') }));
        return defined({
          bucket: input.bucket,
          prefix: input.prefix,
          delimiter: input.delimiter,
          isTruncated: out.IsTruncated ?? false,
          nextKeyMarker: spelling.marker(out.NextKeyMarker, [...uploads, ...prefixes]),
          nextUploadIdMarker: out.NextUploadIdMarker,
          uploads: uploads.map(({ key, upload: u }) =>
            defined({ key, uploadId: u.UploadId ?? '', initiated: iso(u.Initiated), storageClass: u.StorageClass }),
          ),
          commonPrefixes: prefixes.map((p) => p.key),
        });
      }, 'NoSuchBucket'),

    putBucketLifecycle: (bucket, rules, o) =>
      call(async ({ sdk, client }) => {
        await client.send(
          new sdk.PutBucketLifecycleConfigurationCommand({
            Bucket: bucket,
            LifecycleConfiguration: {
              Rules: rules.map((r) => ({
                ID: r.id,
                Status: r.status,
                Filter: { Prefix: r.filter?.prefix ?? '' },
                ...(r.expiration
                  ? { Expiration: { Days: r.expiration.days, ExpiredObjectDeleteMarker: r.expiration.expiredObjectDeleteMarker } }
                  : {}),
                ...(r.noncurrentVersionExpiration
                  ? { NoncurrentVersionExpiration: { NoncurrentDays: r.noncurrentVersionExpiration.noncurrentDays } }
                  : {}),
                ...(r.abortIncompleteMultipartUpload
                  ? { AbortIncompleteMultipartUpload: { DaysAfterInitiation: r.abortIncompleteMultipartUpload.daysAfterInitiation } }
                  : {}),
              })),
            },
          }),
          send(o),
        );
      }, 'NoSuchBucket'),

    deleteBucketLifecycle: (bucket, o) =>
      call(async ({ sdk, client }) => {
        await client.send(new sdk.DeleteBucketLifecycleCommand({ Bucket: bucket }), send(o));
      }, 'NoSuchBucket'),

    presignGetObject: (input) =>
      presign((sdk) => new sdk.GetObjectCommand({ Bucket: input.bucket, Key: input.key, VersionId: input.versionId }), input.expiresIn),

    presignPutObject: (input) =>
      presign(
        (sdk) => new sdk.PutObjectCommand({ Bucket: input.bucket, Key: input.key, ContentType: input.contentType }),
        input.expiresIn,
        input.contentType !== undefined,
      ),

    presignUploadPart: (input) =>
      presign(
        (sdk) =>
          new sdk.UploadPartCommand({ Bucket: input.bucket, Key: input.key, UploadId: input.uploadId, PartNumber: input.partNumber }),
        input.expiresIn,
      ),
  };
}

interface HeadOutput {
  VersionId?: string | undefined;
  ContentType?: string | undefined;
  ContentLength?: number | undefined;
  ContentRange?: string | undefined;
  ETag?: string | undefined;
  LastModified?: Date | undefined;
  Metadata?: Record<string, string> | undefined;
  ServerSideEncryption?: string | undefined;
  ObjectLockMode?: string | undefined;
  ObjectLockRetainUntilDate?: Date | undefined;
  ObjectLockLegalHoldStatus?: string | undefined;
}

function objectInfo(ref: ObjectRef, out: HeadOutput): ObjectInfo {
  return defined({
    bucket: ref.bucket,
    key: ref.key,
    versionId: out.VersionId,
    contentType: out.ContentType,
    contentLength: out.ContentLength,
    contentRange: out.ContentRange,
    etag: out.ETag,
    lastModified: iso(out.LastModified),
    metadata: out.Metadata ?? {},
    serverSideEncryption: out.ServerSideEncryption,
    objectLockMode: out.ObjectLockMode,
    objectLockRetainUntilDate: iso(out.ObjectLockRetainUntilDate),
    objectLockLegalHold: out.ObjectLockLegalHoldStatus,
  });
}
