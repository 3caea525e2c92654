import type { ToolArgs, ToolDefinition } from './definition.js';
import { pendingHandler } from './pending.js';
import { array, boolean, integer, object, oneOf, string, stringMap } from './schema.js';

const bucket = string({ minLength: 1 });
const key = string({ minLength: 1 });
const versionId = string({ minLength: 1 });
const metadata = stringMap(string({ minLength: 1, maxLength: 128 }), string({ maxLength: 2048 }), { maxProperties: 50 });
const acl = oneOf(['private', 'public-read'], { description: 'Accepted for compatibility; B2 ignores object ACLs.' });

export const s3ObjectTools: ToolDefinition[] = [
  {
    name: 's3_list_objects_v2',
    title: 'List objects',
    description: 'List objects in a bucket (ListObjectsV2) with prefix, delimiter (common prefixes) and continuation-token paging.',
    input: {
      properties: {
        bucket,
        prefix: string(),
        delimiter: string({ maxLength: 16 }),
        maxKeys: integer(1, 1000, { default: 1000 }),
        continuationToken: string(),
        startAfter: string(),
      },
      required: ['bucket'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: pendingHandler('s3_list_objects_v2'),
  },
  {
    name: 's3_list_object_versions',
    title: 'List object versions',
    description: 'List object versions and delete markers in a bucket, with prefix, delimiter and key/version markers for paging.',
    input: {
      properties: {
        bucket,
        prefix: string(),
        delimiter: string({ maxLength: 16 }),
        maxKeys: integer(1, 1000, { default: 1000 }),
        keyMarker: string(),
        versionIdMarker: string(),
      },
      required: ['bucket'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['listFiles'],
    effect: 'read',
    handler: pendingHandler('s3_list_object_versions'),
  },
  {
    name: 's3_head_object',
    title: 'Head object',
    description: 'Get an object\'s metadata (size, type, ETag, dates, user metadata, lock state) without its body.',
    input: { properties: { bucket, key, versionId }, required: ['bucket', 'key'] },
    backing: 'awsS3Sdk',
    capabilities: ['readFiles'],
    effect: 'read',
    handler: pendingHandler('s3_head_object'),
  },
  {
    name: 's3_get_object',
    title: 'Get object',
    description: 'Read an object. Up to 1 MiB is returned inline (base64 for binary); larger objects need range, saveToPath (a local file) or a presigned URL.',
    input: {
      properties: {
        bucket,
        key,
        versionId,
        range: string({ pattern: '^bytes=[0-9]*-[0-9]*$', description: 'HTTP range, e.g. bytes=0-1023.' }),
        saveToPath: string({ minLength: 1, description: 'Stream the object to this local file instead.' }),
      },
      required: ['bucket', 'key'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['readFiles'],
    effect: 'local-write',
    handler: pendingHandler('s3_get_object'),
  },
  {
    name: 's3_put_object',
    title: 'Put object',
    description: 'Upload an object of up to 1 MiB from content (base64) or filePath (a local file). Overwrites create a new version.',
    input: {
      properties: {
        bucket,
        key,
        content: string({ description: 'Body, base64-encoded.' }),
        filePath: string({ minLength: 1 }),
        contentType: string(),
        metadata,
        acl,
        serverSideEncryption: oneOf(['AES256']),
        storageClass: string({ description: 'Accepted for compatibility; ignored by B2.' }),
      },
      required: ['bucket', 'key'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: pendingHandler('s3_put_object'),
  },
  {
    name: 's3_copy_object',
    title: 'Copy object',
    description: 'Copy an object (optionally a specific version) to a new key or bucket, keeping or replacing its metadata.',
    input: {
      properties: {
        sourceBucket: bucket,
        sourceKey: key,
        sourceVersionId: versionId,
        destinationBucket: bucket,
        destinationKey: key,
        metadataDirective: oneOf(['COPY', 'REPLACE'], { default: 'COPY' }),
        metadata,
        contentType: string(),
        acl,
      },
      required: ['sourceBucket', 'sourceKey', 'destinationBucket', 'destinationKey'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['writeFiles'],
    effect: 'idempotent-write',
    handler: pendingHandler('s3_copy_object'),
  },
  {
    name: 's3_delete_object',
    title: 'Delete object',
    description: 'Delete an object: with versionId that version is removed for good; without, a delete marker hides the object.',
    input: { properties: { bucket, key, versionId }, required: ['bucket', 'key'] },
    backing: 'awsS3Sdk',
    capabilities: ['deleteFiles'],
    effect: 'write',
    gate: () => 'delete the object',
    handler: pendingHandler('s3_delete_object'),
  },
  {
    name: 's3_delete_objects',
    title: 'Delete objects',
    description: 'Delete up to 1000 objects or versions in one request.',
    input: {
      properties: {
        bucket,
        objects: array(object({ key, versionId }, ['key']), { minItems: 1, maxItems: 1000 }),
        quiet: boolean({ default: true, description: 'Report only failures.' }),
        bypassGovernance: boolean({ description: 'Needs the bypassGovernance capability.' }),
      },
      required: ['bucket', 'objects'],
    },
    backing: 'awsS3Sdk',
    capabilities: ['deleteFiles'],
    effect: 'write',
    gate: (args: ToolArgs) => {
      const count = Array.isArray(args.objects) ? args.objects.length : 0;
      const bypass = args.bypassGovernance === true ? ', bypassing governance retention' : '';
      return `delete ${count} object(s)${bypass}`;
    },
    handler: pendingHandler('s3_delete_objects'),
  },
];
