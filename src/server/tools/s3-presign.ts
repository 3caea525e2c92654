import type { ToolDefinition } from './definition.js';
import { pendingHandler } from './pending.js';
import { array, integer, oneOf, string } from './schema.js';

const bucket = string({ minLength: 1 });
const key = string({ minLength: 1 });
const expiresIn = integer(1, 604800, { default: 3600, description: 'Seconds the URL stays valid.' });

const presignedUrl: ToolDefinition = {
  name: 's3_get_presigned_url',
  title: 'Get presigned URL',
  description: 'Mint a time-limited URL to download (GetObject) or upload (PutObject) one object without credentials. Anyone holding the URL can use it until it expires; upload URLs need confirmation.',
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
  handler: pendingHandler('s3_get_presigned_url'),
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
    description: 'Mint time-limited PUT URLs for parts of an existing multipart upload; the ETag each PUT returns is needed by s3_complete_multipart_upload.',
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
    handler: pendingHandler('s3_get_presigned_upload_part_url'),
  },
];
