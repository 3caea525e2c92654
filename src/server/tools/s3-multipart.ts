import type { CompletedPart } from '../s3/adapter.js';
import { s3ErrorFrom } from '../s3/errors.js';
import { refuseCutSecrets, type ReadAround } from '../s3/ranged-read.js';
import { badArguments, MIN_PART_BYTES, splitCopySource } from '../s3/rules.js';
import type { ToolDefinition, ToolHandler } from './definition.js';
import { array, integer, object, oneOf, string, stringMap, type ToolArgs } from './schema.js';

const bucket = string({ minLength: 1 });
const key = string({ minLength: 1 });
const uploadId = string({ minLength: 1 });
const partNumber = integer(1, 10000);

type Args<T> = ToolArgs & T;
interface UploadRef {
  bucket: string;
  key: string;
  uploadId: string;
}

const createMultipartUpload: ToolHandler = async (args, context) => {
  const a = args as Args<{ bucket: string; key: string; contentType?: string; metadata?: Record<string, string>; serverSideEncryption?: 'AES256' }>;
  const s3 = await context.s3();
  const upload = await s3.createMultipartUpload(
    { bucket: a.bucket, key: a.key, contentType: a.contentType, metadata: a.metadata, serverSideEncryption: a.serverSideEncryption },
    { signal: context.signal },
  );
  return { structured: { ...upload, minimumPartSize: MIN_PART_BYTES } };
};

const uploadPartCopy: ToolHandler = async (args, context) => {
  const a = args as Args<UploadRef & { partNumber: number; copySource: string; copySourceVersionId?: string; copySourceRange?: string }>;
  const source = splitCopySource(a.copySource);
  const range = a.copySourceRange && (a.copySourceRange.slice('bytes='.length).split('-').map(Number) as [number, number]);
  if (range && range[0] > range[1]) throw badArguments(`copySourceRange ${a.copySourceRange} ends before it starts.`);
  const s3 = await context.s3();
  if (range) {
    const readAround: ReadAround = async (first, length) => {
      const ref = { bucket: source.bucket, key: source.key, versionId: a.copySourceVersionId, range: `bytes=${first}-${first + length - 1}` };
      try {
        const object = await s3.getObject(ref, { signal: context.signal });
        const chunks: Buffer[] = [];
        for await (const chunk of object.body) chunks.push(chunk as Buffer);
        return { bytes: Buffer.concat(chunks), contentRange: object.contentRange };
      } catch (error) {
        const failure = s3ErrorFrom(error);
        // Nothing there to cut: the copy itself answers for a range past the end.
        if (failure.status === 416) return { bytes: Buffer.alloc(0) };
        throw failure;
      }
    };
    await refuseCutSecrets(readAround, range[0], range[1], context.redaction);
  }
  const part = await s3.uploadPartCopy(
    {
      bucket: a.bucket,
      key: a.key,
      uploadId: a.uploadId,
      partNumber: a.partNumber,
      sourceBucket: source.bucket,
      sourceKey: source.key,
      sourceVersionId: a.copySourceVersionId,
      sourceRange: a.copySourceRange,
    },
    { signal: context.signal },
  );
  return { structured: { bucket: a.bucket, key: a.key, uploadId: a.uploadId, ...part } };
};

const completeMultipartUpload: ToolHandler = async (args, context) => {
  const a = args as Args<UploadRef & { parts: CompletedPart[] }>;
  for (let i = 1; i < a.parts.length; i++) {
    if (a.parts[i]!.partNumber <= a.parts[i - 1]!.partNumber) {
      throw badArguments('parts must be listed in ascending partNumber order, each part once.');
    }
  }
  const s3 = await context.s3();
  return {
    structured: await s3.completeMultipartUpload({ bucket: a.bucket, key: a.key, uploadId: a.uploadId, parts: a.parts }, { signal: context.signal }),
  };
};

const abortMultipartUpload: ToolHandler = async (args, context) => {
  const a = args as Args<UploadRef>;
  const s3 = await context.s3();
  await s3.abortMultipartUpload({ bucket: a.bucket, key: a.key, uploadId: a.uploadId }, { signal: context.signal });
  return { text: `Aborted multipart upload ${a.uploadId} of s3://${a.bucket}/${a.key}; its uploaded parts were discarded.` };
};

const listParts: ToolHandler = async (args, context) => {
  const a = args as Args<UploadRef & { maxParts?: number; partNumberMarker?: number }>;
  const s3 = await context.s3();
  return {
    structured: await s3.listParts(
      { bucket: a.bucket, key: a.key, uploadId: a.uploadId, maxParts: a.maxParts ?? 100, partNumberMarker: a.partNumberMarker },
      { signal: context.signal },
    ),
  };
};

const listMultipartUploads: ToolHandler = async (args, context) => {
  const a = args as Args<{ bucket: string; prefix?: string; delimiter?: string; maxUploads?: number; keyMarker?: string; uploadIdMarker?: string }>;
  if (a.uploadIdMarker !== undefined && a.keyMarker === undefined) throw badArguments('uploadIdMarker needs keyMarker (the key that upload belongs to).');
  const s3 = await context.s3();
  return {
    structured: await s3.listMultipartUploads(
      { bucket: a.bucket, prefix: a.prefix, delimiter: a.delimiter, maxUploads: a.maxUploads ?? 100, keyMarker: a.keyMarker, uploadIdMarker: a.uploadIdMarker },
      { signal: context.signal },
    ),
  };
};

export const s3MultipartTools: ToolDefinition[] = [
  {
    name: 's3_create_multipart_upload',
    title: 'Create multipart upload',
    description: 'Start a multipart upload; returns uploadId. Add parts via s3_get_presigned_upload_part_url or s3_upload_part_copy; all but the last part need at least 5 MiB.',
    input: {
      properties: {
        bucket,
        key,
        contentType: string(),
        metadata: stringMap(string({ minLength: 1, maxLength: 128 }), string({ maxLength: 2048 }), { maxProperties: 50 }),
        acl: oneOf(['private', 'public-read']),
        serverSideEncryption: oneOf(['AES256']),
      },
      required: ['bucket', 'key'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'write',
    handler: createMultipartUpload,
  },
  {
    name: 's3_upload_part_copy',
    title: 'Upload part by copy',
    description: 'Fill one part of a multipart upload from an existing object or a byte range of it.',
    input: {
      properties: {
        bucket,
        key,
        uploadId,
        partNumber,
        copySource: string({ minLength: 3, description: 'sourceBucket/sourceKey' }),
        copySourceVersionId: string({ minLength: 1 }),
        copySourceRange: string({ pattern: '^bytes=[0-9]+-[0-9]+$' }),
      },
      required: ['bucket', 'key', 'uploadId', 'partNumber', 'copySource'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: uploadPartCopy,
  },
  {
    name: 's3_complete_multipart_upload',
    title: 'Complete multipart upload',
    description: 'Assemble a multipart upload\'s parts into one object.',
    input: {
      properties: {
        bucket,
        key,
        uploadId,
        parts: array(object({ partNumber, etag: string({ minLength: 1 }) }, ['partNumber', 'etag']), { minItems: 1, maxItems: 10000 }),
      },
      required: ['bucket', 'key', 'uploadId', 'parts'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: completeMultipartUpload,
  },
  {
    name: 's3_abort_multipart_upload',
    title: 'Abort multipart upload',
    description: 'Abort a multipart upload and discard its uploaded parts.',
    input: { properties: { bucket, key, uploadId }, required: ['bucket', 'key', 'uploadId'] },
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    gate: () => 'discard every uploaded part of the multipart upload',
    handler: abortMultipartUpload,
  },
  {
    name: 's3_list_parts',
    title: 'List parts',
    description: 'List the uploaded parts of a multipart upload.',
    input: {
      properties: {
        bucket,
        key,
        uploadId,
        maxParts: integer(1, 1000, { default: 100 }),
        partNumberMarker: integer(0, 10000),
      },
      required: ['bucket', 'key', 'uploadId'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: listParts,
  },
  {
    name: 's3_list_multipart_uploads',
    title: 'List multipart uploads',
    description: 'List in-progress multipart uploads in a bucket.',
    input: {
      properties: {
        bucket,
        prefix: string(),
        delimiter: string({ maxLength: 16 }),
        maxUploads: integer(1, 1000, { default: 100 }),
        keyMarker: string(),
        uploadIdMarker: string(),
      },
      required: ['bucket'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: listMultipartUploads,
  },
];
