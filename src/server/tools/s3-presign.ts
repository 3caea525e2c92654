import { badArguments, MIN_PART_BYTES, requireCapability } from '../s3/rules.js';
import { defineTool, type ToolDefinition, type ToolHandler } from './definition.js';
import { array, integer, oneOf, string, toolInput } from './schema.js';

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

const presignObjectInput = toolInput(
  {
    bucket,
    key,
    operation: oneOf(['GetObject', 'PutObject']),
    versionId: string({ minLength: 1, description: 'GetObject only.' }),
    contentType: string({ description: 'PutObject only; the upload must send it.' }),
    expiresIn,
  },
  ['bucket', 'key', 'operation'],
);

const presignObject: ToolHandler<typeof presignObjectInput> = async (args, context) => {
  const expiresIn = args.expiresIn ?? DEFAULT_EXPIRES_IN;
  // The narrowed schema hides what the key cannot do; a caller bypassing it still meets this check.
  if (args.operation === 'PutObject') {
    requireCapability(context.capabilities, 'writeFiles', 'A PutObject URL');
    if (args.versionId !== undefined) throw badArguments('versionId applies to GetObject URLs only.');
  } else {
    requireCapability(context.capabilities, 'readFiles', 'A GetObject URL');
    if (args.contentType !== undefined) throw badArguments('contentType applies to PutObject URLs only.');
  }
  const s3 = await context.s3();
  const signedAt = Date.now();
  const url =
    args.operation === 'PutObject'
      ? await s3.presignPutObject({ bucket: args.bucket, key: args.key, contentType: args.contentType, expiresIn })
      : await s3.presignGetObject({ bucket: args.bucket, key: args.key, versionId: args.versionId, expiresIn });
  return {
    structured: {
      url,
      operation: args.operation,
      method: args.operation === 'PutObject' ? 'PUT' : 'GET',
      bucket: args.bucket,
      key: args.key,
      ...(args.versionId ? { versionId: args.versionId } : {}),
      ...(args.contentType ? { requiredHeaders: { 'Content-Type': args.contentType } } : {}),
      expiresIn,
      expiresAt: expiry(signedAt, expiresIn),
    },
  };
};

const presignPartsInput = toolInput(
  {
    bucket,
    key,
    uploadId: string({ minLength: 1 }),
    partNumbers: array(integer(1, 10000), { minItems: 1, maxItems: 10000 }),
    expiresIn,
  },
  ['bucket', 'key', 'uploadId', 'partNumbers'],
);

const presignParts: ToolHandler<typeof presignPartsInput> = async (args, context) => {
  if (args.partNumbers.length > MAX_PART_URLS_PER_CALL) {
    throw badArguments(
      `partNumbers lists ${args.partNumbers.length} part numbers; one call mints at most ${MAX_PART_URLS_PER_CALL} URLs. Ask for the rest in further calls, ${MAX_PART_URLS_PER_CALL} at a time.`,
    );
  }
  if (new Set(args.partNumbers).size !== args.partNumbers.length) throw badArguments('partNumbers must not repeat a part number.');
  const expiresIn = args.expiresIn ?? DEFAULT_EXPIRES_IN;
  const s3 = await context.s3();
  const signedAt = Date.now();
  const parts: Array<{ partNumber: number; url: string }> = [];
  for (const partNumber of args.partNumbers) {
    parts.push({
      partNumber,
      url: await s3.presignUploadPart({ bucket: args.bucket, key: args.key, uploadId: args.uploadId, partNumber, expiresIn }),
    });
  }
  return {
    structured: {
      bucket: args.bucket,
      key: args.key,
      uploadId: args.uploadId,
      expiresIn,
      expiresAt: expiry(signedAt, expiresIn),
      minimumPartSize: MIN_PART_BYTES,
      parts,
    },
  };
};

const presignedUrl: ToolDefinition = defineTool({
  name: 's3_get_presigned_url',
  title: 'Get presigned URL',
  description: 'Mint a time-limited URL for one object; anyone holding it can use it until it expires. PutObject URLs need confirmation.',
  input: presignObjectInput,
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
        description:
          'Mint a time-limited URL to download one object without credentials. Anyone holding the URL can use it until it expires.',
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
        description:
          'Mint a time-limited URL to upload one object without credentials. Anyone holding the URL can write the object until it expires; needs confirmation.',
        input: { ...presignedUrl.input, properties: { ...uploadProperties, operation: oneOf(['PutObject']) } },
        gate: () => 'mint a URL that lets anyone holding it write the object',
        narrow: undefined,
      };
    }
    return undefined;
  },
});

export const s3PresignTools: ToolDefinition[] = [
  presignedUrl,
  defineTool({
    name: 's3_get_presigned_upload_part_url',
    title: 'Get presigned upload-part URLs',
    description:
      'Mint time-limited PUT URLs for parts of a multipart upload; s3_complete_multipart_upload needs the ETag each PUT returns.',
    input: presignPartsInput,
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: presignParts,
  }),
];
