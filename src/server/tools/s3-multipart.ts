import type { ToolDefinition } from './definition.js';
import { pendingHandler } from './pending.js';
import { array, integer, object, oneOf, string, stringMap } from './schema.js';

const bucket = string({ minLength: 1 });
const key = string({ minLength: 1 });
const uploadId = string({ minLength: 1 });
const partNumber = integer(1, 10000);

export const s3MultipartTools: ToolDefinition[] = [
  {
    name: 's3_create_multipart_upload',
    title: 'Create multipart upload',
    description: 'Start a multipart upload and return its uploadId. Upload parts via s3_get_presigned_upload_part_url or s3_upload_part_copy; every part but the last must be at least 5 MiB.',
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
    handler: pendingHandler('s3_create_multipart_upload'),
  },
  {
    name: 's3_upload_part_copy',
    title: 'Upload part by copy',
    description: 'Fill one part of a multipart upload from an existing object (optionally a byte range of it).',
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
    handler: pendingHandler('s3_upload_part_copy'),
  },
  {
    name: 's3_complete_multipart_upload',
    title: 'Complete multipart upload',
    description: 'Assemble a multipart upload from its parts (partNumber and the ETag each part upload returned) into one object.',
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
    handler: pendingHandler('s3_complete_multipart_upload'),
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
    handler: pendingHandler('s3_abort_multipart_upload'),
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
    handler: pendingHandler('s3_list_parts'),
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
    handler: pendingHandler('s3_list_multipart_uploads'),
  },
];
