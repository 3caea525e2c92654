import { badArguments, MIN_PART_BYTES, requireCapability } from '../s3/rules.js';
import type { ToolDefinition, ToolHandler } from './definition.js';
import { array, integer, oneOf, string, type ToolArgs } from './schema.js';

const bucket = string({ minLength: 1 });
const key = string({ minLength: 1 });
const expiresIn = integer(1, 604800, { default: 3600, description: 'Seconds the URL stays valid.' });

const DEFAULT_EXPIRES_IN = 3600;
/**
 * Part URLs minted by one call. Each costs a signature and about 1 KB of result, so the schema's
 * 10,000 (the S3 part limit, frozen in the contract) would cost seconds of CPU and megabytes.
 */
const MAX_PART_URLS_PER_CALL = 100;
const expiry = (signedAt: number, expiresIn: number) => new Date(signedAt + expiresIn * 1000).toISOString();

const presignObject: ToolHandler = async (args, context) => {
  const a = args as ToolArgs & { bucket: string; key: string; operation: 'GetObject' | 'PutObject'; versionId?: string; contentType?: string; expiresIn?: number };
  const expiresIn = a.expiresIn ?? DEFAULT_EXPIRES_IN;
  // The narrowed schema hides what the key cannot do; a caller bypassing it still meets this check.
  if (a.operation === 'PutObject') {
    requireCapability(context.capabilities, 'writeFiles', 'A PutObject URL');
    if (a.versionId !== undefined) throw badArguments('versionId applies to GetObject URLs only.');
  } else {
    requireCapability(context.capabilities, 'readFiles', 'A GetObject URL');
    if (a.contentType !== undefined) throw badArguments('contentType applies to PutObject URLs only.');
  }
  const s3 = await context.s3();
  const signedAt = Date.now();
  const url =
    a.operation === 'PutObject'
      ? await s3.presignPutObject({ bucket: a.bucket, key: a.key, contentType: a.contentType, expiresIn })
      : await s3.presignGetObject({ bucket: a.bucket, key: a.key, versionId: a.versionId, expiresIn });
  return {
    structured: {
      url,
      operation: a.operation,
      method: a.operation === 'PutObject' ? 'PUT' : 'GET',
      bucket: a.bucket,
      key: a.key,
      ...(a.versionId ? { versionId: a.versionId } : {}),
      ...(a.contentType ? { requiredHeaders: { 'Content-Type': a.contentType } } : {}),
      expiresIn,
      expiresAt: expiry(signedAt, expiresIn),
    },
  };
};

const presignParts: ToolHandler = async (args, context) => {
  const a = args as ToolArgs & { bucket: string; key: string; uploadId: string; partNumbers: number[]; expiresIn?: number };
  if (a.partNumbers.length > MAX_PART_URLS_PER_CALL) {
    throw badArguments(
      `partNumbers lists ${a.partNumbers.length} part numbers; one call mints at most ${MAX_PART_URLS_PER_CALL} URLs. Ask for the rest in further calls, ${MAX_PART_URLS_PER_CALL} at a time.`,
    );
  }
  if (new Set(a.partNumbers).size !== a.partNumbers.length) throw badArguments('partNumbers must not repeat a part number.');
  const expiresIn = a.expiresIn ?? DEFAULT_EXPIRES_IN;
  const s3 = await context.s3();
  const signedAt = Date.now();
  const parts: Array<{ partNumber: number; url: string }> = [];
  for (const partNumber of a.partNumbers) {
    parts.push({ partNumber, url: await s3.presignUploadPart({ bucket: a.bucket, key: a.key, uploadId: a.uploadId, partNumber, expiresIn }) });
  }
  return {
    structured: { bucket: a.bucket, key: a.key, uploadId: a.uploadId, expiresIn, expiresAt: expiry(signedAt, expiresIn), minimumPartSize: MIN_PART_BYTES, parts },
  };
};

const presignedUrl: ToolDefinition = {
  name: 's3_get_presigned_url',
  title: 'Get presigned URL',
  description: 'Mint a time-limited URL for one object; anyone holding it can use it until it expires. PutObject URLs need confirmation.',
  input: {
    properties: {
      bucket,
      key,
      operation: oneOf(['GetObject', 'PutObject']),
      versionId: string({ minLength: 1, description: 'GetObject only.' }),
      contentType: string({ description: 'PutObject only; the upload must send it.' }),
      expiresIn,
    },
    required: ['bucket', 'key', 'operation'],
  },
  backing: 'awsS3Sdk',
  capabilities: ['readFiles', 'writeFiles'],
  effect: 'idempotent-write',
  gate: (args) => (args.operation === 'PutObject' ? 'mint a URL that lets anyone holding it write the object' : undefined),
  handler: presignObject,
  narrow: (capabilities) => {
    const canRead = capabilities === null || capabilities.has('readFiles');
    const canWrite = capabilities === null || capabilities.has('writeFiles');
    if (canRead && canWrite) return presignedUrl;
    if (canRead) {
      const { contentType: _upload, ...downloadProperties } = presignedUrl.input.properties;
      return {
        ...presignedUrl,
        description: 'Mint a time-limited URL to download one object without credentials. Anyone holding the URL can use it until it expires.',
        input: { ...presignedUrl.input, properties: { ...downloadProperties, operation: oneOf(['GetObject']) } },
        effect: 'read',
        gate: undefined,
        narrow: undefined,
      };
    }
    if (canWrite) {
      const { versionId: _download, ...uploadProperties } = presignedUrl.input.properties;
      return {
        ...presignedUrl,
        description: 'Mint a time-limited URL to upload one object without credentials. Anyone holding the URL can write the object until it expires; needs confirmation.',
        input: { ...presignedUrl.input, properties: { ...uploadProperties, operation: oneOf(['PutObject']) } },
        gate: () => 'mint a URL that lets anyone holding it write the object',
        narrow: undefined,
      };
    }
    return undefined;
  },
};

export const s3PresignTools: ToolDefinition[] = [
  presignedUrl,
  {
    name: 's3_get_presigned_upload_part_url',
    title: 'Get presigned upload-part URLs',
    description: 'Mint time-limited PUT URLs for parts of a multipart upload; s3_complete_multipart_upload needs the ETag each PUT returns.',
    input: {
      properties: {
        bucket,
        key,
        uploadId: string({ minLength: 1 }),
        partNumbers: array(integer(1, 10000), { minItems: 1, maxItems: 10000 }),
        expiresIn,
      },
      required: ['bucket', 'key', 'uploadId', 'partNumbers'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: presignParts,
  },
];
