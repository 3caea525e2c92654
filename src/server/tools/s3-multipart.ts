import { s3ErrorFrom } from '../s3/errors.js';
import { refuseCutSecrets, type ReadAround } from '../s3/ranged-read.js';
import { badArguments, MIN_PART_BYTES, splitCopySource } from '../s3/rules.js';
import { defineTool, type ToolDefinition, type ToolHandler } from './definition.js';
import { array, integer, object, oneOf, string, stringMap, toolInput } from './schema.js';

const bucket = string({ minLength: 1 });
const key = string({ minLength: 1 });
const uploadId = string({ minLength: 1 });
const partNumber = integer(1, 10000);

const createMultipartUploadInput = toolInput(
  {
    bucket,
    key,
    contentType: string(),
    metadata: stringMap(string({ minLength: 1, maxLength: 128 }), string({ maxLength: 2048 }), { maxProperties: 50 }),
    acl: oneOf(['private', 'public-read']),
    serverSideEncryption: oneOf(['AES256']),
  },
  ['bucket', 'key'],
);

const createMultipartUpload: ToolHandler<typeof createMultipartUploadInput> = async (args, context) => {
  const s3 = await context.s3();
  const upload = await s3.createMultipartUpload(
    {
      bucket: args.bucket,
      key: args.key,
      contentType: args.contentType,
      metadata: args.metadata,
      serverSideEncryption: args.serverSideEncryption,
    },
    { signal: context.signal },
  );
  return { structured: { ...upload, minimumPartSize: MIN_PART_BYTES } };
};

const uploadPartCopyInput = toolInput(
  {
    bucket,
    key,
    uploadId,
    partNumber,
    copySource: string({ minLength: 3, description: 'sourceBucket/sourceKey' }),
    copySourceVersionId: string({ minLength: 1 }),
    copySourceRange: string({ pattern: '^bytes=[0-9]+-[0-9]+$' }),
  },
  ['bucket', 'key', 'uploadId', 'partNumber', 'copySource'],
);

const uploadPartCopy: ToolHandler<typeof uploadPartCopyInput> = async (args, context) => {
  const source = splitCopySource(args.copySource);
  const range = args.copySourceRange && (args.copySourceRange.slice('bytes='.length).split('-').map(Number) as [number, number]);
  if (range && range[0] > range[1]) throw badArguments(`copySourceRange ${args.copySourceRange} ends before it starts.`);
  const s3 = await context.s3();
  if (range) {
    const readAround: ReadAround = async (first, length) => {
      const ref = {
        bucket: source.bucket,
        key: source.key,
        versionId: args.copySourceVersionId,
        range: `bytes=${first}-${first + length - 1}`,
      };
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
      bucket: args.bucket,
      key: args.key,
      uploadId: args.uploadId,
      partNumber: args.partNumber,
      sourceBucket: source.bucket,
      sourceKey: source.key,
      sourceVersionId: args.copySourceVersionId,
      sourceRange: args.copySourceRange,
    },
    { signal: context.signal },
  );
  return { structured: { bucket: args.bucket, key: args.key, uploadId: args.uploadId, ...part } };
};

const completeMultipartUploadInput = toolInput(
  {
    bucket,
    key,
    uploadId,
    parts: array(object({ partNumber, etag: string({ minLength: 1 }) }, ['partNumber', 'etag']), { minItems: 1, maxItems: 10000 }),
  },
  ['bucket', 'key', 'uploadId', 'parts'],
);

const completeMultipartUpload: ToolHandler<typeof completeMultipartUploadInput> = async (args, context) => {
  for (let i = 1; i < args.parts.length; i++) {
    if (args.parts[i]!.partNumber <= args.parts[i - 1]!.partNumber) {
      throw badArguments('parts must be listed in ascending partNumber order, each part once.');
    }
  }
  const s3 = await context.s3();
  return {
    structured: await s3.completeMultipartUpload(
      { bucket: args.bucket, key: args.key, uploadId: args.uploadId, parts: args.parts },
      { signal: context.signal },
    ),
  };
};

const abortMultipartUploadInput = toolInput({ bucket, key, uploadId }, ['bucket', 'key', 'uploadId']);

const abortMultipartUpload: ToolHandler<typeof abortMultipartUploadInput> = async (args, context) => {
  const s3 = await context.s3();
  await s3.abortMultipartUpload({ bucket: args.bucket, key: args.key, uploadId: args.uploadId }, { signal: context.signal });
  return { text: `Aborted multipart upload ${args.uploadId} of s3://${args.bucket}/${args.key}; its uploaded parts were discarded.` };
};

const listPartsInput = toolInput(
  {
    bucket,
    key,
    uploadId,
    maxParts: integer(1, 1000, { default: 100 }),
    partNumberMarker: integer(0, 10000),
  },
  ['bucket', 'key', 'uploadId'],
);

const listParts: ToolHandler<typeof listPartsInput> = async (args, context) => {
  const s3 = await context.s3();
  return {
    structured: await s3.listParts(
      {
        bucket: args.bucket,
        key: args.key,
        uploadId: args.uploadId,
        maxParts: args.maxParts ?? 100,
        partNumberMarker: args.partNumberMarker,
      },
      { signal: context.signal },
    ),
  };
};

const listMultipartUploadsInput = toolInput(
  {
    bucket,
    prefix: string(),
    delimiter: string({ maxLength: 16 }),
    maxUploads: integer(1, 1000, { default: 100 }),
    keyMarker: string(),
    uploadIdMarker: string(),
  },
  ['bucket'],
);

const listMultipartUploads: ToolHandler<typeof listMultipartUploadsInput> = async (args, context) => {
  if (args.uploadIdMarker !== undefined && args.keyMarker === undefined)
    throw badArguments('uploadIdMarker needs keyMarker (the key that upload belongs to).');
  const s3 = await context.s3();
  return {
    structured: await s3.listMultipartUploads(
      {
        bucket: args.bucket,
        prefix: args.prefix,
        delimiter: args.delimiter,
        maxUploads: args.maxUploads ?? 100,
        keyMarker: args.keyMarker,
        uploadIdMarker: args.uploadIdMarker,
      },
      { signal: context.signal },
    ),
  };
};

export const s3MultipartTools: ToolDefinition[] = [
  defineTool({
    name: 's3_create_multipart_upload',
    title: 'Create multipart upload',
    description:
      'Start a multipart upload; returns uploadId. Add parts via s3_get_presigned_upload_part_url or s3_upload_part_copy; all but the last part need at least 5 MiB.',
    input: createMultipartUploadInput,
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'write',
    handler: createMultipartUpload,
  }),
  defineTool({
    name: 's3_upload_part_copy',
    title: 'Upload part by copy',
    description: 'Fill one part of a multipart upload from an existing object or a byte range of it.',
    input: uploadPartCopyInput,
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: uploadPartCopy,
  }),
  defineTool({
    name: 's3_complete_multipart_upload',
    title: 'Complete multipart upload',
    description: "Assemble a multipart upload's parts into one object.",
    input: completeMultipartUploadInput,
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: completeMultipartUpload,
  }),
  defineTool({
    name: 's3_abort_multipart_upload',
    title: 'Abort multipart upload',
    description: 'Abort a multipart upload and discard its uploaded parts.',
    input: abortMultipartUploadInput,
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    gate: () => 'discard every uploaded part of the multipart upload',
    handler: abortMultipartUpload,
  }),
  defineTool({
    name: 's3_list_parts',
    title: 'List parts',
    description: 'List the uploaded parts of a multipart upload.',
    input: listPartsInput,
    backing: 'awsS3Sdk',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: listParts,
  }),
  defineTool({
    name: 's3_list_multipart_uploads',
    title: 'List multipart uploads',
    description: 'List in-progress multipart uploads in a bucket.',
    input: listMultipartUploadsInput,
    backing: 'awsS3Sdk',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: listMultipartUploads,
  }),
];
